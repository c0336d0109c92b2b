package prune

import (
	"bytes"
	"encoding/json"

	yaml "go.yaml.in/yaml/v3"
)

// jsonOf writes a node tree as JSON, keeping mapping order.
func jsonOf(n *yaml.Node, indent string) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, n, indent); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, n *yaml.Node, indent string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	inner := indent + "  "
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(",\n")
			}
			k, _ := json.Marshal(keyOf(n.Content[i]))
			b.WriteString(inner)
			b.Write(k)
			b.WriteString(": ")
			if err := writeJSON(b, n.Content[i+1], inner); err != nil {
				return err
			}
		}
		b.WriteString("\n" + indent + "}")
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteString("[\n")
		for i, c := range n.Content {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			if err := writeJSON(b, c, inner); err != nil {
				return err
			}
		}
		b.WriteString("\n" + indent + "]")
	default:
		v, err := value(n)
		if err != nil {
			return err
		}
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(j)
	}
	return nil
}
