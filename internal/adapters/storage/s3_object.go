package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/minio/minio-go/v7"

	"moviesdiary/internal/domain"
)

// s3HeadBytes is how much of an object Open reads ahead: what http.DetectContentType looks
// at, so sniffing the type and seeking back to the start costs no second request.
const s3HeadBytes = 512

// s3Object is an open object streamed from S3, as an fs.File that also seeks. It reads from one
// GET response while reads follow each other; a seek elsewhere (an HTTP range request) opens a
// ranged GET there, pinned to the ETag first read so every part comes from the same object.
type s3Object struct {
	s      *S3
	ctx    context.Context
	cancel context.CancelFunc
	key    string
	info   objectInfo
	etag   string
	head   []byte        // the first bytes, read at open
	body   io.ReadCloser // the current response, nil when none
	bodyAt int64         // the offset of body's next byte
	off    int64         // the reader's offset
}

// openObject sends the first GET and reads the head of the object.
func (s *S3) openObject(ctx context.Context, key string) (*s3Object, error) {
	body, oi, _, err := s.core.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if notFound(err) {
		return nil, domain.NotFound("storage: no object %q", key)
	}
	if err != nil {
		return nil, s.wrap("open", key, err)
	}
	head := make([]byte, min(oi.Size, s3HeadBytes))
	if _, err := io.ReadFull(body, head); err != nil {
		body.Close()
		return nil, s.wrap("open", key, err)
	}
	return &s3Object{s: s, ctx: ctx, key: key, etag: oi.ETag, head: head, body: body, bodyAt: int64(len(head)),
		info: objectInfo{name: path.Base(key), size: oi.Size, modTime: oi.LastModified}}, nil
}

// Stat describes the object: its name, size and modification time.
func (o *s3Object) Stat() (fs.FileInfo, error) { return o.info, nil }

// Read reads from the head, the current response, or a new ranged GET at the offset.
func (o *s3Object) Read(p []byte) (int, error) {
	if o.off >= o.info.size {
		return 0, io.EOF
	}
	if o.off < int64(len(o.head)) {
		n := copy(p, o.head[o.off:])
		o.off += int64(n)
		return n, nil
	}
	if o.body == nil || o.bodyAt != o.off {
		if err := o.reopen(); err != nil {
			return 0, err
		}
	}
	n, err := o.body.Read(p)
	o.off += int64(n)
	o.bodyAt += int64(n)
	if errors.Is(err, io.EOF) && o.off < o.info.size {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// reopen replaces the response with a ranged GET from the offset.
func (o *s3Object) reopen() error {
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
	var opts minio.GetObjectOptions
	if err := opts.SetRange(o.off, 0); err != nil {
		return err
	}
	if o.etag != "" {
		if err := opts.SetMatchETag(o.etag); err != nil {
			return err
		}
	}
	body, _, _, err := o.s.core.GetObject(o.ctx, o.s.bucket, o.key, opts)
	if err != nil {
		return o.s.wrap("read", o.key, err)
	}
	o.body, o.bodyAt = body, o.off
	return nil
}

// Seek moves the offset; no request is sent until the next Read.
func (o *s3Object) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += o.off
	case io.SeekEnd:
		offset += o.info.size
	case io.SeekStart:
	default:
		return 0, fmt.Errorf("storage: seek %s: bad whence %d", o.key, whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("storage: seek %s: negative offset", o.key)
	}
	o.off = offset
	return offset, nil
}

// Close ends the response and the read's time bound.
func (o *s3Object) Close() error {
	if o.body != nil {
		o.body.Close()
		o.body = nil
	}
	if o.cancel != nil {
		o.cancel()
	}
	return nil
}

// objectInfo is an object's fs.FileInfo.
type objectInfo struct {
	name    string
	size    int64
	modTime time.Time
}

func (i objectInfo) Name() string       { return i.name }
func (i objectInfo) Size() int64        { return i.size }
func (i objectInfo) Mode() fs.FileMode  { return 0o444 }
func (i objectInfo) ModTime() time.Time { return i.modTime }
func (i objectInfo) IsDir() bool        { return false }
func (i objectInfo) Sys() any           { return nil }
