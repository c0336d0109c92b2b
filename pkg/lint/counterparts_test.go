package lint

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestCounterparts: the counterparts read elsewhere pair with NEW's
// objects under NEW's keys, objects without one are creates, and each
// counterpart counts as a file read.
func TestCounterparts(t *testing.T) {
	newRev := NewRevision(nil)
	newRev.Add(source.Parse("new.yaml", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: b, namespace: x}\n")))
	live := source.Parse("live", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: default}\n")).Documents[0]
	oldRev, err := Counterparts(newRev, func(k PairKey, d *source.Document) (*source.Document, error) {
		if k.Name == "a" {
			return live, nil
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if oldRev.Files != 1 || oldRev.Documents != 1 || len(oldRev.Order) != 1 || oldRev.Docs[newRev.Order[0]] != live {
		t.Errorf("got %+v, want a's live counterpart under NEW's key, counted once", oldRev)
	}
	if got, want := UpdateSummary(oldRev, newRev, true), (report.Summary{Files: 1, Documents: 3, Objects: 1, CustomResources: 1, Live: true, Checked: []report.Checked{
		{File: "new.yaml", Object: newRev.Docs[newRev.Order[0]].Object},
		{File: "new.yaml", Document: 1, Object: newRev.Docs[newRev.Order[1]].Object},
	}}); !reflect.DeepEqual(got, want) {
		t.Errorf("UpdateSummary: got %+v, want %+v", got, want)
	}
	failed := errors.New("forbidden")
	if _, err := Counterparts(newRev, func(PairKey, *source.Document) (*source.Document, error) { return nil, failed }); err != failed {
		t.Errorf("got %v, want the read's error", err)
	}
}
