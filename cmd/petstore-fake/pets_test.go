package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
)

func TestDecodePets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    []petstore.Pet
		wantErr string // the error, or its start
	}{
		{name: "empty array", content: "[]", want: []petstore.Pet{}},
		{name: "spaces around", content: " \n[{\"name\": \"Rex\", \"categoryId\": 1}]\n",
			want: []petstore.Pet{{Name: "Rex", CategoryID: 1}}},
		{name: "every status", content: `[{"name":"A","categoryId":1,"status":"available"},{"name":"B","categoryId":-2,"status":"pending"},{"name":"C","categoryId":0,"status":"sold"}]`,
			want: []petstore.Pet{{Name: "A", CategoryID: 1, Status: "available"}, {Name: "B", CategoryID: -2, Status: "pending"}, {Name: "C", Status: "sold"}}},
		{name: "ids, as GET /v1/pets gives them", content: `[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":3,"name":"Kiwi","categoryId":3}]`,
			want: []petstore.Pet{{ID: 1, Name: "Rex", CategoryID: 1, Status: "available"}, {ID: 3, Name: "Kiwi", CategoryID: 3}}},
		{name: "ids in any order, 0 and null for the next free one", content: `[{"id":9,"name":"A","categoryId":1},{"id":0,"name":"B","categoryId":1},{"id":2,"name":"C","categoryId":1},{"id":null,"name":"D","categoryId":1},{"name":"E","categoryId":1}]`,
			want: []petstore.Pet{{ID: 9, Name: "A", CategoryID: 1}, {Name: "B", CategoryID: 1}, {ID: 2, Name: "C", CategoryID: 1}, {Name: "D", CategoryID: 1}, {Name: "E", CategoryID: 1}}},
		{name: "empty file", content: "", wantErr: "want a JSON array of animals"},
		{name: "an object", content: `{"name":"Rex","categoryId":1}`, wantErr: "want a JSON array of animals"},
		{name: "null", content: "null", wantErr: "want a JSON array of animals"},
		{name: "bad JSON", content: `[{"name":"Rex",}]`, wantErr: "invalid JSON: invalid character '}'"},
		{name: "data after the array", content: `[] []`, wantErr: "invalid JSON: invalid character '['"},
		{name: "not an object", content: `[{"name":"Rex","categoryId":1}, "Tom"]`, wantErr: "animal 2: want an object with name, categoryId and optional status and id"},
		{name: "no name", content: `[{"categoryId":1}]`, wantErr: "animal 1: name is required"},
		{name: "empty name", content: `[{"name":"","categoryId":1}]`, wantErr: "animal 1: name is required"},
		{name: "null name", content: `[{"name":null,"categoryId":1}]`, wantErr: "animal 1: name is required"},
		{name: "no categoryId", content: `[{"name":"Rex"}]`, wantErr: "animal 1: categoryId is required"},
		{name: "a typo", content: `[{"name":"Rex","category_id":1}]`, wantErr: `animal 1: json: unknown field "category_id" (want id: integer, name: string, categoryId: integer, status: string)`},
		{name: "another letter case", content: `[{"name":"Rex","categoryID":1}]`, wantErr: `animal 1: json: unknown field "categoryID"`},
		{name: "Name", content: `[{"Name":"Rex","categoryId":1}]`, wantErr: `animal 1: json: unknown field "Name"`},
		{name: "a fractional categoryId", content: `[{"name":"Rex","categoryId":1.5}]`, wantErr: "animal 1: categoryId is a JSON number 1.5, want an integer"},
		{name: "a name that is a number", content: `[{"name":1,"categoryId":1}]`, wantErr: "animal 1: name is a JSON number, want a string"},
		{name: "an unknown status", content: `[{"name":"Rex","categoryId":1,"status":"lost"}]`, wantErr: `animal 1: status "lost" is not available, pending or sold`},
		{name: "a negative id", content: `[{"name":"Rex","categoryId":1},{"id":-1,"name":"Tom","categoryId":1}]`,
			wantErr: "animal 2: id -1 is negative (leave it out, or give 0, for the next free one)"},
		{name: "an id given twice", content: `[{"id":4,"name":"Rex","categoryId":1},{"name":"Tom","categoryId":1},{"id":4,"name":"Kiwi","categoryId":1}]`,
			wantErr: "animal 3: id 4 is animal 1's already"},
		{name: "a string id", content: `[{"id":"4","name":"Rex","categoryId":1}]`, wantErr: "animal 1: id is a JSON string, want an integer"},
		{name: "a fractional id", content: `[{"id":4.5,"name":"Rex","categoryId":1}]`, wantErr: "animal 1: id is a JSON number 4.5, want an integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := decodePets([]byte(tc.content))
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Errorf("decodePets(%s) = %v, want an error starting %q", tc.content, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodePets(%s): %v", tc.content, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decodePets(%s) mismatch (-want +got):\n%s", tc.content, diff)
			}
		})
	}
}
