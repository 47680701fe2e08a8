package config

import (
	"fmt"
	"net/url"
	"regexp"
	"time"
)

// ImageStore chooses where images are kept: a local directory (IMAGE_STORAGE_PATH, one host)
// or a bucket of an S3-compatible object store (servers and workers on several hosts). The
// values are storage.Config's (each binary copies them there); config imports no adapter.
type ImageStore struct {
	// ImageStorage is "local" (the default) or "s3".
	ImageStorage string `envconfig:"IMAGE_STORAGE" default:"local"`
	// S3Endpoint is the server's base URL: http(s)://host[:port], no path.
	S3Endpoint string `envconfig:"IMAGE_S3_ENDPOINT"`
	// S3Bucket must exist; the binaries refuse to start otherwise.
	S3Bucket string `envconfig:"IMAGE_S3_BUCKET"`
	// S3Region signs the requests.
	S3Region string `envconfig:"IMAGE_S3_REGION" default:"us-east-1"`
	// S3AccessKey and S3SecretKey are the credentials.
	S3AccessKey string `envconfig:"IMAGE_S3_ACCESS_KEY" secret:"true"`
	S3SecretKey string `envconfig:"IMAGE_S3_SECRET_KEY" secret:"true"`
	// S3PathStyle is auto, true (host/bucket/key) or false (bucket.host/key).
	S3PathStyle string `envconfig:"IMAGE_S3_PATH_STYLE" default:"auto"`
	// S3Timeout bounds one operation (and one streamed GET /images/{key}).
	S3Timeout time.Duration `envconfig:"IMAGE_S3_TIMEOUT" default:"30s"`
}

// bucketName is an S3 bucket name: lowercase letters, digits, '.' and '-', starting and ending
// with a letter or digit.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*[a-z0-9]$`)

// validateImageStore refuses a store that cannot work, and a combination that says one thing
// and does another (S3 settings while images stay local, a directory while they go to S3).
func (c Config) validateImageStore() error {
	switch c.ImageStorage {
	case "local":
		for name, v := range map[string]string{"IMAGE_S3_ENDPOINT": c.S3Endpoint, "IMAGE_S3_BUCKET": c.S3Bucket,
			"IMAGE_S3_ACCESS_KEY": c.S3AccessKey, "IMAGE_S3_SECRET_KEY": c.S3SecretKey} {
			if v != "" {
				return fmt.Errorf("%s: is set but IMAGE_STORAGE is local, so it would be ignored; set IMAGE_STORAGE=s3 "+
					"to keep images in the bucket, or unset it", name)
			}
		}
		return nil
	case "s3":
	default:
		return fmt.Errorf("IMAGE_STORAGE: %q is not an image store (local or s3)", c.ImageStorage)
	}
	u, err := url.Parse(c.S3Endpoint)
	switch {
	case c.S3Endpoint == "":
		return fmt.Errorf("IMAGE_S3_ENDPOINT: must be set with IMAGE_STORAGE=s3 (e.g. https://s3.example.com or http://minio:9000)")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.User != nil:
		return fmt.Errorf("IMAGE_S3_ENDPOINT: %q must be http:// or https:// and a host[:port], without a path "+
			"(the bucket goes in IMAGE_S3_BUCKET)", c.S3Endpoint)
	case c.S3Bucket == "":
		return fmt.Errorf("IMAGE_S3_BUCKET: must be set with IMAGE_STORAGE=s3")
	case len(c.S3Bucket) < 3 || len(c.S3Bucket) > 63 || !bucketName.MatchString(c.S3Bucket):
		return fmt.Errorf("IMAGE_S3_BUCKET: %q is not a bucket name (3-63 lowercase letters, digits, '.' and '-')", c.S3Bucket)
	case c.S3AccessKey == "" || c.S3SecretKey == "":
		return fmt.Errorf("IMAGE_S3_ACCESS_KEY: IMAGE_S3_ACCESS_KEY and IMAGE_S3_SECRET_KEY must both be set with IMAGE_STORAGE=s3")
	case c.S3Region == "":
		return fmt.Errorf("IMAGE_S3_REGION: must not be empty (most self-hosted servers accept us-east-1)")
	case c.S3PathStyle != "auto" && c.S3PathStyle != "true" && c.S3PathStyle != "false":
		return fmt.Errorf("IMAGE_S3_PATH_STYLE: %q is not auto, true or false", c.S3PathStyle)
	case c.S3Timeout < 100*time.Millisecond:
		return fmt.Errorf("IMAGE_S3_TIMEOUT: %s must be at least 100ms", c.S3Timeout)
	case c.ImageStoragePath != "":
		return fmt.Errorf("IMAGE_STORAGE_PATH: is set but IMAGE_STORAGE is s3, so it would be ignored; unset it " +
			"(copy the directory's images into the bucket, see the README)")
	}
	return nil
}
