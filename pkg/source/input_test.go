package source

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHasKind(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"manifest", "apiVersion: v1\nkind: ConfigMap\n", true},
		{"second document", "a: 1\n---\napiVersion: v1\nkind: ConfigMap\n", true},
		{"quoted key", "\"kind\": ConfigMap\n", true},
		{"single-quoted key", "'kind' : ConfigMap\n", true},
		{"BOM", "\xef\xbb\xbfkind: ConfigMap\n", true},
		{"CRLF", "apiVersion: v1\r\nkind: ConfigMap\r\n", true},
		{"flow mapping document", "{apiVersion: v1, kind: ConfigMap}\n", true},
		{"flow mapping after a separator", "--- {apiVersion: v1, kind: ConfigMap}\n", true},
		{"JSON", `{"apiVersion": "v1", "kind": "ConfigMap"}`, true},
		{"JSON without kind", `{"name": "x", "items": [1]}`, false},
		{"Hugo data", "- name: a\n  kind: talk\n- name: b\n", false},
		{"i18n", "hello:\n  other: Hello\n", false},
		{"JSON 6902 patch", "- op: add\n  path: /spec/kind\n  value: x\n", false},
		{"kind is not the key", "kinds: [a]\nkindly: yes\n", false},
		{"indented kind", "spec:\n  kind: x\n", false},
		{"Go template line", "{{ if .Values.x }}\nfoo: 1\n{{ end }}\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HasKind([]byte(tt.in)); got != tt.want {
				t.Errorf("HasKind(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestParseInput: a text that names no kind is data, not manifests:
// nothing in it is an error, every document counts as skipped; a text
// with objects keeps kubectl's errors, as kubectl refuses the file.
func TestParseInput(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		rules     []string // the findings' rules, in order
		skipped   int
		templates int
		docs      int
		// partial and substitutions: partial CRDs and substitution
		// templates.
		partial, substitutions int
	}{
		{name: "list-only data", in: "- name: a\n- name: b\n", skipped: 1},
		{name: "i18n scalars and lists", in: "a\n---\n- b\n---\nc: d\n", skipped: 3},
		{name: "JSON 6902 patch", in: "- op: replace\n  path: /spec/replicas\n  value: 3\n", skipped: 1},
		{name: "syntax error without kind", in: "reviewers:\n  - @someone\n", skipped: 1},
		{name: "JSON array without kind", in: "[1, 2]\n", skipped: 1},
		{
			name:  "list beside an object",
			in:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n- op: add\n  path: /x\n",
			rules: []string{RuleNotAnObject}, docs: 1,
		},
		{
			name:  "list of objects",
			in:    "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n",
			rules: []string{RuleNotAnObject},
		},
		{
			name:  "syntax error beside an object",
			in:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\na: [\n",
			rules: []string{RuleSyntax}, docs: 1,
		},
		{
			name:    "YAML 1.1 key in a workflow",
			in:      "on:\n  push: {}\njobs: {}\n",
			skipped: 1,
		},
		{
			name:  "YAML 1.1 key and a repeated key in an object",
			in:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  on: x\n  a: 1\n  a: 2\n",
			rules: []string{RuleYAML11Key, RuleDuplicate}, docs: 1,
		},
		{
			name:    "repeated key in a mapping that is no object",
			in:      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nx: 1\nx: 2\nyes: 3\n",
			skipped: 1, docs: 1,
		},
		{
			name:      "Go template outside a chart",
			in:        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\n",
			templates: 1,
		},
		{
			name:      "Go template documents cut by ---",
			in:        "{{ if .X }}\napiVersion: v1\nkind: ConfigMap\n---\nkind: {{ .Kind }}\n{{ end }}\n",
			templates: 2,
		},
		{
			name:      "Go template without kind (clusterloader2)",
			in:        "{{$MODE := DefaultParam .MODE \"Indexed\"}}\nname: test\n",
			templates: 1,
		},
		{
			name:      "Hugo JSON template",
			in:        "{{- $pages := slice }}\n[{{ range .Pages }}{\"t\": {{ .Title | jsonify }}}{{ end }}]\n",
			templates: 1,
		},
		{
			name:      "Go template escaping braces for another templating",
			in:        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wiremock-{{ .TestRun }}\n  namespace: {{ .E2ENamespace }}\ndata:\n  m.json: |\n    {\"ETag\": \"{{ \"{{randomValue type='UUID'}}\" }}\"}\n",
			templates: 1,
		},
		{
			name:  "Argo's {{args.x-y}} unquoted: no Go template, no YAML",
			in:    "apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: a\n  annotations:\n    inject: {{args.linkerd-enabled}}\n",
			rules: []string{RuleSyntax},
		},
		{
			name:  "Argo's {{args.x-y}} unquoted beside an action that could be Go's",
			in:    "apiVersion: argoproj.io/v1alpha1\nkind: AnalysisTemplate\nmetadata:\n  name: a\n  annotations:\n    inject: {{args.linkerd-enabled}}\nspec:\n  url: http://x.{{ args.namespace }}.svc\n",
			rules: []string{RuleSyntax},
		},
		{
			name: "Argo's {{inputs.parameters.x}} in a string: a manifest",
			in:   "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  name: a\nspec:\n  args: [\"{{inputs.parameters.x}}\"]\n",
			docs: 1,
		},
		{
			name:    "a CRD's conversion patch (prometheus-operator's patch.json)",
			in:      `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "alertmanagerconfigs.monitoring.coreos.com"}, "spec": {"conversion": {"strategy": "Webhook"}}}`,
			partial: 1,
		},
		{
			name:    "a test's expected CRD: a status alone (chainsaw's crd-assert.yaml)",
			in:      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: roles.iam.example.com\nstatus:\n  acceptedNames:\n    kind: Role\n",
			partial: 1,
		},
		{
			name:    "spec: {} (crossplane's crd-scale.yaml) beside a whole CRD",
			in:      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: xs.example.org}\nspec: {}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ys.example.org}\nspec:\n  group: example.org\n  names: {plural: ys, kind: Y}\n",
			partial: 1, docs: 1,
		},
		{
			name:    "a schema overlay (openshift's manual-override-crd-manifests)",
			in:      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: routes.route.openshift.io\nspec:\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        properties:\n          spec: {}\n",
			partial: 1,
		},
		{
			name: "a CRD that lacks names but has a group is an attempt at a whole one",
			in:   "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: xs.example.org}\nspec:\n  group: example.org\n",
			docs: 1,
		},
		{
			name: "a custom resource without group and names is no CRD",
			in:   "apiVersion: example.org/v1\nkind: X\nmetadata: {name: a}\nspec: {}\n",
			docs: 1,
		},
		{
			name:          "clusterctl template: ${CLUSTER_NAME} in the name",
			in:            "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata:\n  name: ${CLUSTER_NAME}\n  namespace: default\n---\napiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: \"${ CLUSTER_NAME }-md-0\"\n",
			substitutions: 2,
		},
		{
			name:          "${VAR} in the namespace, and generateName",
			in:            "apiVersion: example.org/v1\nkind: X\nmetadata:\n  name: a\n  namespace: ${NAMESPACE}\n---\napiVersion: example.org/v1\nkind: X\nmetadata:\n  generateName: ${PREFIX}-\n",
			substitutions: 2,
		},
		{
			name:          "a whole value only substitution types: replicas, a list's default",
			in:            "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: md-0\nspec:\n  replicas: ${WORKER_MACHINE_COUNT}\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: DockerMachineTemplate\nmetadata:\n  name: t\nspec:\n  preLoadImages: ${DOCKER_PRELOAD_IMAGES:-[]}\n---\napiVersion: example.org/v1\nkind: X\nmetadata: {name: x}\nspec:\n  ns: \"${A:-${B}}\"\n",
			substitutions: 3,
		},
		{
			name: "${VAR} inside a longer value: judged (a script, two placeholders, an image)",
			in:   "apiVersion: example.org/v1\nkind: Task\nmetadata:\n  name: t\nspec:\n  script: |\n    echo ${HOME}\n  image: registry/${IMAGE}:v1\n  pair: ${A}-${B}\n  price: $5\n  shell: ${1}\n",
			docs: 1,
		},
		{
			name:          "chainsaw binding in the name",
			in:            "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata:\n  name: ($test.metadata.name)\n",
			substitutions: 1,
		},
		{
			name: "parentheses without a binding: an invalid name, judged",
			in:   "apiVersion: example.org/v1\nkind: X\nmetadata:\n  name: (draft)\n",
			docs: 1,
		},
		{
			name:          "a CRD is a substitution template too",
			in:            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${PLURAL}.example.org\nspec:\n  group: example.org\n",
			substitutions: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ParseInput("f.yaml", []byte(tt.in))
			var rules []string
			for _, fd := range f.Findings {
				rules = append(rules, fd.Rule)
			}
			if strings.Join(rules, ",") != strings.Join(tt.rules, ",") {
				t.Errorf("got findings %+v, want rules %v", f.Findings, tt.rules)
			}
			if f.Skipped != tt.skipped || f.Templates != tt.templates || len(f.Documents) != tt.docs || f.Partial != tt.partial || f.Substitutions != tt.substitutions {
				t.Errorf("got %d skipped, %d templates, %d documents, %d partial, %d substitutions; want %d, %d, %d, %d, %d",
					f.Skipped, f.Templates, len(f.Documents), f.Partial, f.Substitutions, tt.skipped, tt.templates, tt.docs, tt.partial, tt.substitutions)
			}
			// Read a document at a time, as a command streams a file, the
			// text says the same.
			r := NewDocReader("f.yaml", &chunkReader{data: []byte(tt.in), rng: rand.New(rand.NewPCG(3, 4))})
			r.NoKind = !HasKind([]byte(tt.in))
			r.Input = true
			streamed, err := readAllDocs(r)
			if err != nil {
				t.Fatal(err)
			}
			checkSameFile(t, "streamed", streamed, f)
		})
	}
}

// TestParseKeepsKubectlsReading: Parse is kubectl's reading, whatever the
// text names: a list is an error there.
func TestParseKeepsKubectlsReading(t *testing.T) {
	f := Parse("f.yaml", []byte("- name: a\n"))
	if len(f.Findings) != 1 || f.Findings[0].Rule != RuleNotAnObject {
		t.Errorf("got %+v, want one %s finding", f.Findings, RuleNotAnObject)
	}
	// A partial CRD and a substitution template are documents there.
	f = Parse("f.yaml", []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: xs.example.org}\nspec: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${NAME}\n"))
	if len(f.Documents) != 2 || f.Partial+f.Substitutions != 0 {
		t.Errorf("got %d documents, %d partial, %d substitutions; want 2, 0, 0", len(f.Documents), f.Partial, f.Substitutions)
	}
}

func TestIsTemplate(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"name: {{ .Name }}", true},
		{"{{- if .Values.enabled }}", true},
		{"{{ end }}", true},
		{"{{- else if .X }}", true},
		{"{{/* a comment */}}", true},
		{"{{ $x := DefaultParam .X 1 }}", true},
		{"{{ $x := 1 }}\nreplicas: {{$x}}", true},
		{"{{ include \"x\" . | nindent 4 }}", true},
		{"{{inputs.parameters.message}}", true},
		// Literal braces escaped for another tool's templating (WireMock's
		// in ECK's e2e mocks, Knative's in KServe's Helm files/).
		{`etag: "{{ "{{randomValue type='UUID'}}" }}"`, true},
		{"- --framework={{ \"{{.Annotations.modelFormat}}\" }}\n", true},
		{"{{ `{{raw}}` }} and {{ '}' }}", true},
		{`{{ "a \"}}\" b" }}`, true},
		{"{{/* don't }} */}}", true},
		{"{{- /* a comment */ -}}", true},
		{"id: {{jsonPath request.body '$.name'}}", false},
		{"a: {{ \"open\nb: }}", false},
		{"inject: {{args.linkerd-enabled}}", false},
		{"inject: {{args.linkerd-enabled}}\nurl: http://x.{{ args.namespace }}.svc", false},
		{"a: {{ .A }}\nb: {{ .B }", false},
		{"{{a: 1}: b}", false},
		{"no action", false},
		{"{{", false},
		{strings.Repeat("{{ .X }}", 100) + "{{a-b}}", true}, // past maxActions
	}
	for _, tt := range tests {
		if got := isTemplate([]byte(tt.in)); got != tt.want {
			t.Errorf("isTemplate(%.40q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzParseInput: a text read as a command's input, whole or a document
// at a time with NoKind set from the text as input.Run sets it, gives the
// same documents, findings and counts, and never panics; key hints are
// only on documents that are objects.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		"- a\n- b\n", "a\n---\n- b\n---\nc: d\n", "x: [\n", "kind: X\n---\n- 1\n",
		"name: {{ .Name }}\n", "{{ if .X }}\na: 1\n---\nb: {{ .Y }}\n{{ end }}\n",
		"a: {{args.x-y}}\n", "{\"a\": [1]}", "[1, 2]\n", "on: push\nyes: 1\n",
	} {
		f.Add([]byte(s), uint64(len(s)))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		want := ParseInput("fuzz.yaml", data)
		r := NewDocReader("fuzz.yaml", &chunkReader{data: data, rng: rand.New(rand.NewPCG(seed, 5))})
		r.NoKind = !HasKind(data)
		r.Input = true
		got, err := readAllDocs(r)
		if err != nil {
			t.Fatal(err)
		}
		checkSameFile(t, "streamed", got, want)
		// Hints about keys only on documents that are objects.
		objects := map[int]bool{}
		for _, d := range want.Documents {
			objects[d.Index] = true
		}
		for _, fd := range want.Findings {
			if (fd.Rule == RuleYAML11Key || fd.Rule == RuleDuplicate) && !objects[fd.Document] {
				t.Errorf("a %s finding on document %d, which is no object: %+v", fd.Rule, fd.Document, fd)
			}
		}
	})
}
