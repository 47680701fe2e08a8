//go:build tools

// Package versitygw pins the S3 gateway the storage tests run: Versity's versitygw (Apache 2.0),
// a real S3 server over a POSIX directory. It is its own module so its dependencies (cloud SDKs,
// an HTTP framework) stay out of moviesdiary's go.mod; s3test builds the binary from here.
package versitygw

import _ "github.com/versity/versitygw/cmd/versitygw"
