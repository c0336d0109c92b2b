package gitrev

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Split splits REV:PATH. An argument that names something on disk is a
// path even with a colon in it, and "-" is stdin.
func Split(arg string) (rev, path string, ok bool) {
	if arg == "-" {
		return "", "", false
	}
	if _, err := os.Stat(arg); err == nil {
		return "", "", false
	}
	rev, path, ok = strings.Cut(arg, ":")
	if !ok || rev == "" || path == "" {
		return "", "", false
	}
	return rev, path, true
}

// File is a file as a revision has it.
type File struct {
	// Path is the file's path as the argument names it: PATH itself, or
	// PATH/sub/name.yaml for a file under the directory PATH.
	Path string
	Data []byte
}

// Read reads PATH at revision REV of the repository of the working
// directory: the file, or, when PATH is a directory at REV (dir), every
// file under it whose name ends in one of exts (compared without case), in
// the order a walk of the same directory on disk reads them (lexical,
// directory by directory), hidden files and directories left out as that
// walk leaves them out. Symbolic links and submodules are left out: they
// hold no manifest at the revision. A directory without such a file is
// an error.
func Read(rev, path string, exts []string) (files []File, dir bool, err error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, false, fmt.Errorf("%s:%s: reading a file at a git revision needs git, which is not on PATH", rev, path)
	}
	out, err := run(git, nil, "show", rev+":"+path)
	if err != nil {
		return nil, false, fmt.Errorf("cannot read %s at git revision %s: %w", path, rev, err)
	}
	// git show prints a tree as its header and a listing, which would
	// parse as an empty YAML stream rather than fail.
	if !bytes.HasPrefix(out, []byte("tree "+rev+":"+path+"\n\n")) {
		return []File{{Path: path, Data: out}}, false, nil
	}
	files, err = readTree(git, rev, path, exts)
	if err != nil {
		return nil, true, fmt.Errorf("cannot read %s at git revision %s: %w", path, rev, err)
	}
	if len(files) == 0 {
		return nil, true, fmt.Errorf("cannot read %s at git revision %s: it is a directory with no %s file under it", path, rev, strings.Join(exts, ", "))
	}
	return files, true, nil
}

// readTree reads the files of the directory PATH at REV that Read keeps:
// their list from git ls-tree, their content from one git cat-file.
func readTree(git, rev, dir string, exts []string) ([]File, error) {
	list, err := run(git, nil, "ls-tree", "-r", "-z", rev+":"+dir)
	if err != nil {
		return nil, err
	}
	type entry struct{ oid, rel string }
	var entries []entry
	for _, rec := range bytes.Split(list, []byte{0}) {
		// <mode> SP <type> SP <object> TAB <path>
		meta, rel, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || f[0] == "120000" || !keep(rel, exts) {
			continue
		}
		entries = append(entries, entry{f[2], rel})
	}
	slices.SortFunc(entries, func(a, b entry) int { return walkOrder(a.rel, b.rel) })
	var ids bytes.Buffer
	for _, e := range entries {
		ids.WriteString(e.oid + "\n")
	}
	blobs, err := run(git, &ids, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(blobs))
	files := make([]File, 0, len(entries))
	for _, e := range entries {
		// <object> SP <type> SP <size> LF <contents> LF
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %v", e.rel, err)
		}
		f := strings.Fields(header)
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file: %s: %s", e.rel, strings.TrimSpace(header))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %s", e.rel, strings.TrimSpace(header))
		}
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %v", e.rel, err)
		}
		files = append(files, File{Path: path.Join(dir, e.rel), Data: data[:n]})
	}
	return files, nil
}

// keep says a file under the directory is read: no hidden file or
// directory on its path, and one of exts.
func keep(rel string, exts []string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	ext := strings.ToLower(path.Ext(rel))
	return slices.Contains(exts, ext)
}

// walkOrder orders paths as a walk of their directory on disk reads them:
// names compared directory by directory (git orders a directory "a" after
// a file "a.yaml", as it compares "a/").
func walkOrder(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

// run runs git with args (and stdin), and returns its output; the error
// is the reason git gives, one line, without its "fatal: ".
func run(git string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command(git, args...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		msg = strings.TrimPrefix(msg, "fatal: ")
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return out, nil
}
