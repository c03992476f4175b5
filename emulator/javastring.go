package emulator

import (
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

// The service echoes some collections in its violations the way its Java
// model classes print them (Lombok-style toString, every field named, unset
// ones null). These render a batch's RequestItems that way. Map
// order is the Java HashMap's on the service; here it is sorted, so a
// multi-table or multi-attribute echo may list entries in another order.

// javaAttributeFields are the AttributeValue fields in the order the
// service prints them.
var javaAttributeFields = [...]string{"s", "n", "b", "iNT", "dECIMAL", "dOUBLE", "sS", "nS", "bS", "iNTSET", "dECIMALSET", "dOUBLESET", "m", "l", "nULL", "bOOL"}

func javaRequestItems(items map[string][]api.WriteRequest) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range sortedNames(items) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteString("=[")
		for j, r := range items[name] {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("WriteRequest(putRequest=")
			if r.PutRequest != nil {
				b.WriteString("PutRequest(item=")
				javaItem(&b, r.PutRequest.Item)
				b.WriteString(", workloadProfileName=null)")
			} else {
				b.WriteString("null")
			}
			b.WriteString(", deleteRequest=")
			if r.DeleteRequest != nil {
				b.WriteString("DeleteRequest(key=")
				javaItem(&b, r.DeleteRequest.Key)
				b.WriteString(", workloadProfileName=null)")
			} else {
				b.WriteString("null")
			}
			b.WriteByte(')')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// javaBatchGetItems renders a BatchGetItem's RequestItems the same way.
func javaBatchGetItems(items map[string]api.KeysAndAttributes) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range sortedNames(items) {
		if i > 0 {
			b.WriteString(", ")
		}
		ka := items[name]
		b.WriteString(name)
		b.WriteString("=KeysAndAttributes(keys=")
		if ka.Keys == nil {
			b.WriteString("null")
		} else {
			b.WriteByte('[')
			for j, k := range ka.Keys {
				if j > 0 {
					b.WriteString(", ")
				}
				javaItem(&b, k)
			}
			b.WriteByte(']')
		}
		b.WriteString(", attributesToGet=")
		if ka.AttributesToGet == nil {
			b.WriteString("null")
		} else {
			b.WriteString("[" + strings.Join(ka.AttributesToGet, ", ") + "]")
		}
		b.WriteString(", consistentRead=")
		if ka.ConsistentRead == nil {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatBool(*ka.ConsistentRead))
		}
		b.WriteString(", projectionExpression=")
		if ka.ProjectionExpression == nil {
			b.WriteString("null")
		} else {
			b.WriteString(*ka.ProjectionExpression)
		}
		b.WriteString(", expressionAttributeNames=")
		if ka.ExpressionAttributeNames == nil {
			b.WriteString("null")
		} else {
			b.WriteByte('{')
			for j, k := range sortedNames(ka.ExpressionAttributeNames) {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(k + "=" + ka.ExpressionAttributeNames[k])
			}
			b.WriteByte('}')
		}
		b.WriteByte(')')
	}
	b.WriteByte('}')
	return b.String()
}

func javaItem(b *strings.Builder, item av.Item) {
	if item == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('{')
	for i, k := range sortedNames(item) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		javaValue(b, item[k])
	}
	b.WriteByte('}')
}

func javaValue(b *strings.Builder, v av.Value) {
	set := map[string]string{}
	switch v.Type {
	case av.TypeS:
		set["s"] = v.S
	case av.TypeN:
		set["n"] = v.S
	case av.TypeB:
		set["b"] = javaByteBuffer(v.S)
	case av.TypeSS, av.TypeNS:
		set[map[av.Type]string{av.TypeSS: "sS", av.TypeNS: "nS"}[v.Type]] = "[" + strings.Join(v.Set, ", ") + "]"
	case av.TypeBS:
		parts := make([]string, len(v.Set))
		for i, s := range v.Set {
			parts[i] = javaByteBuffer(s)
		}
		set["bS"] = "[" + strings.Join(parts, ", ") + "]"
	case av.TypeM:
		var m strings.Builder
		javaItem(&m, av.Item(v.M))
		set["m"] = m.String()
	case av.TypeL:
		var l strings.Builder
		l.WriteByte('[')
		for i, e := range v.L {
			if i > 0 {
				l.WriteString(", ")
			}
			javaValue(&l, e)
		}
		l.WriteByte(']')
		set["l"] = l.String()
	case av.TypeNULL:
		set["nULL"] = "true"
	case av.TypeBOOL:
		set["bOOL"] = strconv.FormatBool(v.Bool)
	}
	b.WriteString("AttributeValue(")
	for i, f := range javaAttributeFields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f)
		b.WriteByte('=')
		if s, ok := set[f]; ok {
			b.WriteString(s)
		} else {
			b.WriteString("null")
		}
	}
	b.WriteByte(')')
}

// javaByteBuffer is how java.nio prints a heap buffer holding raw.
func javaByteBuffer(raw string) string {
	n := strconv.Itoa(len(raw))
	return "java.nio.HeapByteBuffer[pos=0 lim=" + n + " cap=" + n + "]"
}
