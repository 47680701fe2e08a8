package storage

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"moviesdiary/internal/domain"
)

// S3TimeoutDefault bounds one S3 operation (a probe, a put, a get, a delete, or a whole
// streamed read for GET /images/{key}) when S3Config.Timeout is zero.
const S3TimeoutDefault = 30 * time.Second

// s3Retries is how many times the client tries one request: once more after a network blip,
// no more. Longer outages are the delivery engine's to retry (a handler's error is transient),
// not a request's to wait out.
const s3Retries = 2

// Path styles, as IMAGE_S3_PATH_STYLE names them.
const (
	// PathStyleAuto lets the client decide: virtual-hosted style (bucket.host) where the
	// endpoint is known to support it (AWS and a few other clouds), path style (host/bucket)
	// everywhere else.
	PathStyleAuto = "auto"
	// PathStyleOn always uses path style: MinIO, Garage, SeaweedFS, versitygw without a domain.
	PathStyleOn = "true"
	// PathStyleOff always uses virtual-hosted style.
	PathStyleOff = "false"
)

// S3Config configures the S3 store.
type S3Config struct {
	// Endpoint is the server's base URL, http:// or https:// and a host with an optional port
	// (no path): https://s3.eu-west-1.amazonaws.com, http://minio:9000.
	Endpoint string
	// Bucket must exist already; OpenS3 checks it.
	Bucket string
	// Region signs requests; most self-hosted servers accept us-east-1.
	Region string
	// AccessKey and SecretKey are the credentials (SigV4).
	AccessKey, SecretKey string
	// PathStyle is PathStyleAuto (also when empty), PathStyleOn or PathStyleOff.
	PathStyle string
	// Timeout bounds each operation; zero means S3TimeoutDefault.
	Timeout time.Duration
	// Transport carries the requests; nil means a clone of http.DefaultTransport.
	Transport http.RoundTripper
}

// S3 keeps objects in a bucket of an S3-compatible object store, so servers and workers on
// different hosts share one image store. An S3 PUT replaces the whole object at once (the
// server makes it visible only once complete), which gives Put the same all-or-nothing rule
// as Local's rename.
type S3 struct {
	core    minio.Core
	bucket  string
	where   string // endpoint and bucket, for messages
	timeout time.Duration
	// transport is closed by Close when it can be (its idle connections).
	transport http.RoundTripper
}

// OpenS3 connects to the endpoint and checks the bucket exists and the credentials may read
// it, so a wrong setting stops the process at start-up with a message saying which one.
func OpenS3(ctx context.Context, c S3Config) (*S3, error) {
	u, err := url.Parse(c.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("storage: s3 endpoint %q must be http:// or https:// and a host[:port], no path", c.Endpoint)
	}
	if c.Bucket == "" {
		return nil, errors.New("storage: s3 bucket is empty")
	}
	lookup := minio.BucketLookupAuto
	switch c.PathStyle {
	case "", PathStyleAuto:
	case PathStyleOn:
		lookup = minio.BucketLookupPath
	case PathStyleOff:
		lookup = minio.BucketLookupDNS
	default:
		return nil, fmt.Errorf("storage: s3 path style %q is not auto, true or false", c.PathStyle)
	}
	transport := c.Transport
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	client, err := minio.New(u.Host, &minio.Options{
		Creds:        credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure:       u.Scheme == "https",
		Region:       c.Region,
		BucketLookup: lookup,
		Transport:    transport,
		MaxRetries:   s3Retries,
	})
	if err != nil {
		return nil, fmt.Errorf("storage: s3 client for %s: %w", c.Endpoint, err)
	}
	s := &S3{core: minio.Core{Client: client}, bucket: c.Bucket, where: c.Endpoint + " bucket " + c.Bucket,
		timeout: cmp.Or(c.Timeout, S3TimeoutDefault), transport: transport}
	if err := s.probe(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// probe checks the bucket: missing, forbidden and unreachable each get their own message.
func (s *S3) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ok, err := s.core.BucketExists(ctx, s.bucket)
	switch code := minio.ToErrorResponse(err).Code; {
	case err == nil && !ok, code == minio.NoSuchBucket:
		return fmt.Errorf("storage: s3 bucket %q does not exist at %s: create it first (moviesdiary does not create buckets)",
			s.bucket, s.core.EndpointURL())
	case code == minio.AccessDenied || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch":
		return fmt.Errorf("storage: s3 %s refused the credentials (%s): check IMAGE_S3_ACCESS_KEY, IMAGE_S3_SECRET_KEY, "+
			"IMAGE_S3_REGION and the key's access to the bucket: %w", s.where, code, err)
	case err != nil:
		return fmt.Errorf("storage: s3 %s unreachable: %w", s.where, err)
	}
	return nil
}

// Ping checks that the bucket answers with these credentials, within the store's timeout: the
// server's readiness, since a server whose images are unreachable cannot serve posters or take
// uploads.
func (s *S3) Ping(ctx context.Context) error { return s.probe(ctx) }

// Close closes the idle connections; the store is not used after it.
func (s *S3) Close() error {
	if t, ok := s.transport.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
	return nil
}

// notFound reports whether err is S3's answer for a missing object.
func notFound(err error) bool { return minio.ToErrorResponse(err).Code == minio.NoSuchKey }

// wrap gives an S3 failure its operation and key; it stays transient (the delivery engine
// retries it), as any store failure that is not the key's own fault.
func (s *S3) wrap(op, key string, err error) error {
	return fmt.Errorf("storage: s3 %s %s (%s): %w", op, key, s.where, err)
}

// Put stores data under key with one PUT, its Content-Type sniffed from the bytes (so the
// bucket also serves well on its own, behind a CDN). The object appears whole or not at all.
func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, err := s.core.Client.PutObject(ctx, s.bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: http.DetectContentType(data), DisableMultipart: true})
	if err != nil {
		return s.wrap("put", key, err)
	}
	return nil
}

// Get reads the whole object; a missing one is KindNotFound.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	body, _, _, err := s.core.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if notFound(err) {
		return nil, domain.NotFound("storage: no object %q", key)
	}
	if err != nil {
		return nil, s.wrap("get", key, err)
	}
	defer body.Close()
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, s.wrap("get", key, err)
	}
	return data, nil
}

// Exists probes the exact key (a HEAD, never a listing by prefix).
func (s *S3) Exists(ctx context.Context, key string) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	_, err := s.core.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if notFound(err) {
		return false, nil
	}
	if err != nil {
		return false, s.wrap("stat", key, err)
	}
	return true, nil
}

// Delete removes the object; a missing one is success (S3 says so too, and a server that
// answers NoSuchKey instead is taken at its word), so deleting twice is harmless.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := s.core.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	if err != nil && !notFound(err) {
		return s.wrap("delete", key, err)
	}
	return nil
}

// Open starts streaming the object; a missing one is KindNotFound. The whole read, however
// the caller seeks, is bounded by the store's timeout from now, and Close ends it.
func (s *S3) Open(ctx context.Context, key string) (fs.File, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	f, err := s.openObject(ctx, key)
	if err != nil {
		cancel()
		return nil, err
	}
	f.cancel = cancel
	return f, nil
}
