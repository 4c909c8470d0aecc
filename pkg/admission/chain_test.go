package admission

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// recorder is a plugin that notes each call in a shared log.
type recorder struct {
	Handler
	name        string
	log         *[]string
	err         error
	reinvokeOn1 bool
}

func (r *recorder) Admit(_ context.Context, a *Attributes) error {
	call := r.name + ".admit"
	if a.IsReinvoke() {
		call += "(again)"
	} else if r.reinvokeOn1 {
		a.RequestReinvocation()
	}
	*r.log = append(*r.log, call)
	return r.err
}

type validator struct {
	Handler
	name string
	log  *[]string
	err  error
}

func (v *validator) Validate(context.Context, *Attributes) error {
	*v.log = append(*v.log, v.name+".validate")
	return v.err
}

func TestTheChainRunsEachPhaseInOrderOnTheOperationsEachPluginHandles(t *testing.T) {
	var log []string
	chain := NewChain(nil,
		NamedPlugin{"A", &recorder{Handler: NewHandler(Create, Update), name: "A", log: &log}},
		NamedPlugin{"B", &validator{Handler: NewHandler(Create), name: "B", log: &log}},
		NamedPlugin{"C", &recorder{Handler: NewHandler(Delete), name: "C", log: &log}},
		NamedPlugin{"D", &validator{Handler: NewHandler(Create, Delete), name: "D", log: &log}},
	)
	a := &Attributes{Operation: Create}
	if err := chain.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := chain.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A.admit", "B.validate", "D.validate"}; !slices.Equal(log, want) {
		t.Errorf("create ran %v, want %v", log, want)
	}
	log = nil
	a = &Attributes{Operation: Delete}
	_ = chain.Admit(context.Background(), a)
	_ = chain.Validate(context.Background(), a)
	if want := []string{"C.admit", "D.validate"}; !slices.Equal(log, want) {
		t.Errorf("delete ran %v, want %v", log, want)
	}
}

func TestTheFirstRefusalStopsThePhase(t *testing.T) {
	var log []string
	refused := errors.New("no")
	chain := NewChain(nil,
		NamedPlugin{"A", &recorder{Handler: NewHandler(Create), name: "A", log: &log, err: refused}},
		NamedPlugin{"B", &recorder{Handler: NewHandler(Create), name: "B", log: &log}},
	)
	if err := chain.Admit(context.Background(), &Attributes{Operation: Create}); !errors.Is(err, refused) {
		t.Fatalf("Admit = %v, want the first plugin's refusal", err)
	}
	if want := []string{"A.admit"}; !slices.Equal(log, want) {
		t.Errorf("ran %v, want %v", log, want)
	}
}

func TestAPluginMayHaveTheMutatingPhaseRunOnceMore(t *testing.T) {
	var log []string
	chain := NewChain(nil,
		NamedPlugin{"A", &recorder{Handler: NewHandler(Create), name: "A", log: &log, reinvokeOn1: true}},
		NamedPlugin{"B", &recorder{Handler: NewHandler(Create), name: "B", log: &log}},
	)
	a := &Attributes{Operation: Create}
	a.SetReinvocationValue("A", 1)
	if err := chain.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A.admit", "B.admit", "A.admit(again)", "B.admit(again)"}; !slices.Equal(log, want) {
		t.Errorf("ran %v, want %v", log, want)
	}
	if a.ReinvocationValue("A") != 1 {
		t.Errorf("the value a plugin stored was lost")
	}
}

func TestTheChainRecordsKubeAPIServersLatencyMetrics(t *testing.T) {
	var log []string
	m := NewMetrics()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	chain := NewChain(m,
		NamedPlugin{"NamespaceLifecycle", &recorder{Handler: NewHandler(Create), name: "A", log: &log, err: errors.New("no")}},
		NamedPlugin{"Later", &validator{Handler: NewHandler(Create), name: "B", log: &log}},
	)
	_ = chain.Admit(context.Background(), &Attributes{Operation: Create})
	_ = chain.Validate(context.Background(), &Attributes{Operation: Create})

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			var labels []string
			for _, l := range metric.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got = append(got, f.GetName()+"{"+strings.Join(labels, ",")+"}")
		}
	}
	// As kube-apiserver 1.37.1's /metrics names them (recorded by hand).
	want := []string{
		"apiserver_admission_controller_admission_duration_seconds{name=Later,operation=CREATE,rejected=false,type=validate}",
		"apiserver_admission_controller_admission_duration_seconds{name=NamespaceLifecycle,operation=CREATE,rejected=true,type=admit}",
		"apiserver_admission_step_admission_duration_seconds{operation=CREATE,rejected=false,type=validate}",
		"apiserver_admission_step_admission_duration_seconds{operation=CREATE,rejected=true,type=admit}",
		"apiserver_admission_step_admission_duration_seconds_summary{operation=CREATE,rejected=false,type=validate}",
		"apiserver_admission_step_admission_duration_seconds_summary{operation=CREATE,rejected=true,type=admit}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("series:\n got %q\nwant %q", got, want)
	}
}
