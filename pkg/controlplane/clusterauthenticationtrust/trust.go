// Package clusterauthenticationtrust publishes how this server
// authenticates clients, in the ConfigMap kube-system/
// extension-apiserver-authentication, as kube-apiserver's
// cluster-authentication-trust controller does. Extension API servers read
// it to trust the same client CA and the same front proxy.
//
// Like kube-apiserver, the server adds its own settings to what the
// ConfigMap already holds (several servers may share a cluster, each adds
// its CAs and headers) rather than replacing it: CA bundles are merged
// without duplicates and without certificates expired for more than five
// minutes; header lists are merged keeping the first order seen.
package clusterauthenticationtrust

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/client"
)

const (
	// Namespace and Name name the ConfigMap.
	Namespace = "kube-system"
	Name      = "extension-apiserver-authentication"
)

// Info is what the server publishes. CA bundles are PEM; an empty
// RequestHeaderCA means no front proxy, and then no requestheader-* key is
// written.
type Info struct {
	ClientCA                 []byte
	RequestHeaderCA          []byte
	RequestHeaderUsername    []string
	RequestHeaderUID         []string
	RequestHeaderGroup       []string
	RequestHeaderExtraPrefix []string
	RequestHeaderAllowed     []string
}

// Merge returns the ConfigMap data for info added to existing data.
func Merge(existing map[string]string, info Info, now time.Time) (map[string]string, error) {
	old, err := parse(existing)
	if err != nil {
		return nil, err
	}
	data := map[string]string{}
	if ca := mergeCAs(now, old.ClientCA, info.ClientCA); len(ca) > 0 {
		data["client-ca-file"] = string(ca)
	}
	ca := mergeCAs(now, old.RequestHeaderCA, info.RequestHeaderCA)
	if len(ca) == 0 {
		return data, nil
	}
	data["requestheader-client-ca-file"] = string(ca)
	for key, lists := range map[string][2][]string{
		"requestheader-username-headers":     {old.RequestHeaderUsername, info.RequestHeaderUsername},
		"requestheader-group-headers":        {old.RequestHeaderGroup, info.RequestHeaderGroup},
		"requestheader-extra-headers-prefix": {old.RequestHeaderExtraPrefix, info.RequestHeaderExtraPrefix},
		"requestheader-allowed-names":        {old.RequestHeaderAllowed, info.RequestHeaderAllowed},
		"requestheader-uid-headers":          {old.RequestHeaderUID, info.RequestHeaderUID},
	} {
		merged := mergeLists(lists[0], lists[1])
		// kube-apiserver 1.37 leaves out the uid key when no server
		// configures uid headers (its oracle ConfigMap has none) but
		// writes "[]" for the other lists.
		if key == "requestheader-uid-headers" && len(merged) == 0 {
			continue
		}
		b, err := json.Marshal(merged)
		if err != nil {
			return nil, err
		}
		data[key] = string(b)
	}
	return data, nil
}

func parse(data map[string]string) (Info, error) {
	var info Info
	info.ClientCA = []byte(data["client-ca-file"])
	info.RequestHeaderCA = []byte(data["requestheader-client-ca-file"])
	for key, dst := range map[string]*[]string{
		"requestheader-username-headers":     &info.RequestHeaderUsername,
		"requestheader-uid-headers":          &info.RequestHeaderUID,
		"requestheader-group-headers":        &info.RequestHeaderGroup,
		"requestheader-extra-headers-prefix": &info.RequestHeaderExtraPrefix,
		"requestheader-allowed-names":        &info.RequestHeaderAllowed,
	} {
		if v := data[key]; v != "" {
			if err := json.Unmarshal([]byte(v), dst); err != nil {
				return Info{}, fmt.Errorf("%s/%s %s: %w", Namespace, Name, key, err)
			}
		}
	}
	return info, nil
}

func mergeLists(a, b []string) []string {
	out := []string{}
	for _, s := range slices.Concat(a, b) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// mergeCAs concatenates the certificates of the bundles, re-encoded,
// dropping duplicates and those expired for more than five minutes.
func mergeCAs(now time.Time, bundles ...[]byte) []byte {
	var out []byte
	var seen []*x509.Certificate
	for _, b := range bundles {
		for {
			var block *pem.Block
			block, b = pem.Decode(b)
			if block == nil {
				break
			}
			c, err := x509.ParseCertificate(block.Bytes)
			if block.Type != "CERTIFICATE" || err != nil || !c.NotAfter.After(now.Add(-5*time.Minute)) {
				continue
			}
			if slices.ContainsFunc(seen, c.Equal) {
				continue
			}
			seen = append(seen, c)
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
		}
	}
	return out
}

// Clients are what the controller writes with.
type Clients struct {
	// ConfigMaps are those of kube-system.
	ConfigMaps client.Interface[*corev1.ConfigMap, *corev1.ConfigMapList]
	Namespaces client.Interface[*corev1.Namespace, *corev1.NamespaceList]
}

// Sync writes info into the ConfigMap, creating kube-system and the
// ConfigMap if needed.
func Sync(ctx context.Context, c Clients, info Info) error {
	cms := c.ConfigMaps
	cm, err := cms.Get(ctx, Name, metav1.GetOptions{})
	exists := err == nil
	if apierrors.IsNotFound(err) {
		cm, err = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: Name}}, nil
	}
	if err != nil {
		return err
	}
	data, err := Merge(cm.Data, info, time.Now())
	if err != nil {
		return err
	}
	if exists && maps.Equal(data, cm.Data) {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = data
	if exists {
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	}
	if _, err := c.Namespaces.Get(ctx, Namespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		_, err = c.Namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	return err
}

// Run syncs now, then every minute (kube-apiserver's controller re-checks
// the ConfigMap and its CA files as often) until ctx ends. info is asked
// each time. A failed sync is reported to onError and tried again at the
// next tick: like kube-apiserver's controller, it never stops the server.
func Run(ctx context.Context, c Clients, info func() Info, onError func(error)) {
	if err := Sync(ctx, c, info()); err != nil {
		onError(err)
	}
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := Sync(ctx, c, info()); err != nil && ctx.Err() == nil {
					onError(err)
				}
			}
		}
	}()
}
