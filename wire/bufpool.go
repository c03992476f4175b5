package wire

import "sync"

// maxPooledBuffer bounds the buffers kept for reuse: a rare 16 MB batch
// is left to the GC rather than pinned.
const maxPooledBuffer = 64 << 10

// bufferPool recycles the request body and response buffers of the data
// plane: for a GetItem they were the largest allocation per request (the
// response about twice the stored item), and all garbage once written.
// Nothing may keep a slice of a buffer after put: decoders copy what they
// keep, and ResponseWriter.Write copies what it is given.
type bufferPool struct{ p sync.Pool }

// pooledBuffer is what the pool holds: a pointer, so that putting a
// buffer back allocates nothing.
type pooledBuffer struct{ b []byte }

// get returns a holder whose b is empty, with capacity when reused.
func (bp *bufferPool) get() *pooledBuffer {
	if pb, ok := bp.p.Get().(*pooledBuffer); ok {
		return pb
	}
	return &pooledBuffer{}
}

// put keeps b's array for reuse in pb; the caller holds no slice of it
// after.
func (bp *bufferPool) put(pb *pooledBuffer, b []byte) {
	if c := cap(b); c < 512 || c > maxPooledBuffer {
		return
	}
	pb.b = b[:0]
	bp.p.Put(pb)
}
