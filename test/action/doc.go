// Package action holds no code: its tests check the GitHub Action
// (action.yml and hack/action/*.sh) and the container image definition
// (Dockerfile, dockers_v2 in .goreleaser.yaml), none of which GitHub or
// docker can run on a developer's machine or in `go test`.
//
// The action's composite steps are run by a small stand-in for the runner
// (runner_test.go): it reads action.yml, evaluates the `${{ }}` expressions
// the action uses, runs each `run:` step with bash and a stub GITHUB_*
// environment, and replaces the `uses:` steps (actions/cache, setup-go) with
// fakes, so the wiring between action.yml and the scripts is tested along
// with the scripts. The first run builds kubectl-crdlint as the action does
// (go build -trimpath: on a cold Go build cache that compiles every
// dependency once more, since go test builds without -trimpath) and leaves
// it in the fake cache for every later run; only the cache: false case
// links it again:
//
//	go test ./test/action
//
// What is left unverified here: the real runner, Windows and macOS shells,
// and the image itself (no docker): the Dockerfile and goreleaser
// configuration are only parsed and checked.
package action
