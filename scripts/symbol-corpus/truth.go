// Ground truth for Go from go/ast.
//
// What counts: package-level functions, methods (container: the receiver's
// base type), types (struct, interface, other), and every named const and var
// (blank `_` names excluded), including each spec inside const ( … ) and
// var ( … ) groups. A grouped spec starts at its name and ends where the spec
// ends; an ungrouped declaration spans its whole `const`/`var`/`type` line(s).
// Usage: go run truth.go FILE > symbols.json
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

type symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Line      int    `json:"line"`
	EndLine   int    `json:"endLine"`
	Container string `json:"container,omitempty"`
}

func receiverType(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.StarExpr:
		return receiverType(t.X)
	case *ast.IndexExpr:
		return receiverType(t.X)
	case *ast.IndexListExpr:
		return receiverType(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

func main() {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, os.Args[1], nil, parser.SkipObjectResolution)
	if err != nil {
		panic(err)
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	out := []symbol{}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			s := symbol{Name: d.Name.Name, Kind: "function", Line: line(d.Pos()), EndLine: line(d.End() - 1)}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.Kind = "method"
				s.Container = receiverType(d.Recv.List[0].Type)
			}
			out = append(out, s)
		case *ast.GenDecl:
			grouped := d.Lparen.IsValid()
			for _, spec := range d.Specs {
				start, end := line(d.Pos()), line(d.End()-1)
				if grouped {
					start, end = line(spec.Pos()), line(spec.End()-1)
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					kind := "type"
					switch s.Type.(type) {
					case *ast.StructType:
						kind = "struct"
					case *ast.InterfaceType:
						kind = "interface"
					}
					out = append(out, symbol{Name: s.Name.Name, Kind: kind, Line: start, EndLine: end})
				case *ast.ValueSpec:
					kind := "variable"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for _, name := range s.Names {
						if name.Name == "_" {
							continue
						}
						begin := start
						if grouped {
							begin = line(name.Pos())
						}
						out = append(out, symbol{Name: name.Name, Kind: kind, Line: begin, EndLine: end})
					}
				}
			}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
