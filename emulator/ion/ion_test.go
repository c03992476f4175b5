package ion_test

import (
	"io"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/ion"
)

func TestRoundTrip(t *testing.T) {
	it := av.Item{
		"Id":      {Type: av.TypeN, S: "101"},
		"Price":   {Type: av.TypeN, S: "-1.5E3"},
		"Title":   {Type: av.TypeS, S: "Book \"101\"\n\x01é"},
		"Cover":   {Type: av.TypeB, S: "\x00\xffbin"},
		"Authors": {Type: av.TypeSS, Set: []string{"A", "B"}},
		"Sizes":   {Type: av.TypeNS, Set: []string{"1", "2.5"}},
		"Blobs":   {Type: av.TypeBS, Set: []string{"x", "y"}},
		"InPub":   {Type: av.TypeBOOL, Bool: true},
		"Gone":    {Type: av.TypeNULL, Bool: true},
		"odd key": {Type: av.TypeL, L: []av.Value{{Type: av.TypeS, S: "a"}, {Type: av.TypeM, M: map[string]av.Value{"$x": {Type: av.TypeBOOL}}}}},
		"null":    {Type: av.TypeS, S: "keyword as a name"},
	}
	line := ion.AppendItemLine(nil, it)
	d := ion.NewDecoder(line)
	v, err := d.Next()
	if err != nil {
		t.Fatalf("Next: %v\n%s", err, line)
	}
	got := v.M["Item"]
	if got.Type != av.TypeM || !av.EqualItems(av.Item(got.M), it) {
		t.Fatalf("round trip:\n%s\ngot %#v", line, got)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("after the item: %v", err)
	}
}

func TestDecodeDeveloperGuideExample(t *testing.T) {
	// The DG's "DynamoDB table export output format" ION example.
	src := `$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1","Author2"],Dimensions:"8.5 x 11.0 x 0.5",ISBN:"111-1111111111",Id:101.,InPublication:false,PageCount:500.,Price:2d1,ProductCategory:"Book",Title:"Book 101 Title"}}
$ion_1_0 {Item:{Id:1., /* comment */ Pic:{{aGk=}}, N:null.string, L:'''long ''' '''string'''}}`
	d := ion.NewDecoder([]byte(src))
	v, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	it := v.M["Item"].M
	if it["Id"].S != "101" || it["Price"].S != "2E1" || it["Authors"].Type != av.TypeSS || it["InPublication"].Type != av.TypeBOOL {
		t.Errorf("decoded %#v", it)
	}
	v, err = d.Next()
	if err != nil {
		t.Fatal(err)
	}
	it = v.M["Item"].M
	if it["Pic"].S != "hi" || it["N"].Type != av.TypeNULL || it["L"].S != "long string" {
		t.Errorf("decoded %#v", it)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, src := range []string{`{Item:{a:}}`, `{Item:{a:"x}}`, `{Item:{a:{{!!}}}}`, `{Item:[1,2}`, `{Item:{a:$dynamodb_NS::["x"]}}`, `{Item:{a:1..2}}`} {
		if _, err := ion.NewDecoder([]byte(src)).Next(); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add([]byte(`$ion_1_0 {Item:{Authors:$dynamodb_SS::["Author1"],Id:101.,Price:2d1,B:{{aGk=}}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := ion.NewDecoder(b)
		for range 100 {
			if _, err := d.Next(); err != nil {
				return
			}
		}
	})
}
