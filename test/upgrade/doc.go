// Package upgrade holds no code: its tests check kubectl crdlint upgrade
// against a real API server started in-process (internal/apiservertest):
// its predictions are what the server then does
// (TestPredictionAgainstReality), and crd.ValidateUpdate and the replay
// agree with the server over the real CRD histories of
// pkg/upgrade/compare/testdata/history (TestHistoryAgainstServer).
package upgrade
