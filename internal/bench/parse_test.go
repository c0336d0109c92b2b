package bench

import "testing"

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		name          string
		parse         func([]byte) (int, int, error)
		out           string
		docs, invalid int
		wantErr       bool
	}{
		{"crdlint: errors per document, warnings ignored", ParseCrdlint,
			`{"findings":[{"severity":"error","file":"a.yaml","document":0},{"severity":"error","file":"a.yaml","document":0},
			 {"severity":"warning","file":"a.yaml","document":1},{"severity":"error","file":"b.yaml","document":0}],
			 "summary":{"files":2,"documents":5,"errors":3,"warnings":1,"skipped":1}}`, 4, 2, false},
		{"crdlint: clean", ParseCrdlint, `{"findings":[],"summary":{"documents":3}}`, 3, 0, false},
		{"kubeconform: summary", ParseKubeconform,
			`{"resources":[{"status":"statusInvalid"}],"summary":{"valid":7,"invalid":2,"errors":1,"skipped":4}}`, 10, 3, false},
		{"kubeconform: no summary", ParseKubeconform, `{"resources":[]}`, 0, 0, true},
		{"kubectl-validate: statuses", ParseKubectlValidate,
			`{"a.yaml":[{"metadata":{},"status":"Success"},{"status":"Failure","message":"x"}],"b.yaml":[{"status":"Failure"}]}`, 3, 2, false},
		{"garbage", ParseKubectlValidate, `not json`, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, invalid, err := tc.parse([]byte(tc.out))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tc.wantErr)
			}
			if docs != tc.docs || invalid != tc.invalid {
				t.Errorf("got %d docs, %d invalid; want %d, %d", docs, invalid, tc.docs, tc.invalid)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []int64
		want int64
	}{{[]int64{3, 1, 2}, 2}, {[]int64{4, 1, 3, 2}, 2}, {[]int64{5}, 5}} {
		if got := median(append([]int64(nil), tc.in...)); got != tc.want {
			t.Errorf("median(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
