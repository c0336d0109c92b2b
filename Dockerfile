# The kubectl-crdlint container image, built by goreleaser (dockers_v2 in
# .goreleaser.yaml) from the release binaries: its build context holds
# linux/amd64/kubectl-crdlint and linux/arm64/kubectl-crdlint (static,
# CGO_ENABLED=0) and LICENSE, so a plain `docker build .` does not work here;
# `goreleaser release --snapshot --clean` builds it locally (docker buildx).
#
#   docker run --rm -v "$PWD:/work" ghcr.io/kubectl-crdlint/kubectl-crdlint check .
#
# distroless/static rather than scratch: CA certificates for --live and
# --crd-from-cluster over TLS, /etc/passwd with the nonroot user, tzdata.
FROM gcr.io/distroless/static-debian12:nonroot

ARG TARGETPLATFORM
COPY $TARGETPLATFORM/kubectl-crdlint /usr/local/bin/kubectl-crdlint
# The older Kubernetes minors' engines, found beside the main binary
# (--kubernetes-version; docs/versions.md).
COPY $TARGETPLATFORM/crdlint-k8s1.33 /usr/local/bin/crdlint-k8s1.33
COPY $TARGETPLATFORM/crdlint-k8s1.34 /usr/local/bin/crdlint-k8s1.34
COPY $TARGETPLATFORM/crdlint-k8s1.35 /usr/local/bin/crdlint-k8s1.35
COPY $TARGETPLATFORM/crdlint-k8s1.36 /usr/local/bin/crdlint-k8s1.36
COPY LICENSE /usr/share/doc/kubectl-crdlint/LICENSE

# distroless's nonroot user; numeric, so that runAsNonRoot can verify it.
USER 65532:65532
# The mount point of the files to check: `check .` reads the mount.
WORKDIR /work
ENTRYPOINT ["/usr/local/bin/kubectl-crdlint"]
CMD ["--help"]
