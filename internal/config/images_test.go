package config

import (
	"os"
	"strings"
	"testing"
	"time"
)

var imageStoreVars = []string{"IMAGE_STORAGE", "IMAGE_S3_ENDPOINT", "IMAGE_S3_BUCKET", "IMAGE_S3_REGION",
	"IMAGE_S3_ACCESS_KEY", "IMAGE_S3_SECRET_KEY", "IMAGE_S3_PATH_STYLE", "IMAGE_S3_TIMEOUT"}

func clearImageStoreEnv(t *testing.T) {
	clearMediaEnv(t)
	for _, v := range imageStoreVars {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

// s3Env is a complete S3 configuration.
func s3Env(t *testing.T) {
	for k, v := range map[string]string{"IMAGE_STORAGE": "s3", "IMAGE_S3_ENDPOINT": "http://minio:9000",
		"IMAGE_S3_BUCKET": "diary-images", "IMAGE_S3_ACCESS_KEY": "ak", "IMAGE_S3_SECRET_KEY": "sk"} {
		t.Setenv(k, v)
	}
}

func TestImageStoreDefaults(t *testing.T) {
	clearImageStoreEnv(t)
	t.Setenv("DATA_DIR", "/srv/md")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.ImageStorage != "local" || c.ImageDir() != "/srv/md/images" || c.S3Region != "us-east-1" ||
		c.S3PathStyle != "auto" || c.S3Timeout != 30*time.Second {
		t.Fatalf("image store defaults: %+v", c.ImageStore)
	}
}

func TestImageStoreS3(t *testing.T) {
	clearImageStoreEnv(t)
	s3Env(t)
	t.Setenv("IMAGE_S3_PATH_STYLE", "true")
	t.Setenv("IMAGE_S3_REGION", "garage")
	t.Setenv("IMAGE_S3_TIMEOUT", "5s")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := ImageStore{ImageStorage: "s3", S3Endpoint: "http://minio:9000", S3Bucket: "diary-images", S3Region: "garage",
		S3AccessKey: "ak", S3SecretKey: "sk", S3PathStyle: "true", S3Timeout: 5 * time.Second}
	if c.ImageStore != want {
		t.Fatalf("S3 config: %+v, want %+v", c.ImageStore, want)
	}
}

// TestImageStoreRefusals: every combination that cannot work, or would silently ignore a
// setting, stops start-up with a message naming the variable.
func TestImageStoreRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		s3   bool // start from a complete S3 configuration
		env  map[string]string
		want string
	}{
		"unknown store":          {env: map[string]string{"IMAGE_STORAGE": "gcs"}, want: "IMAGE_STORAGE:"},
		"S3 endpoint but local":  {env: map[string]string{"IMAGE_S3_ENDPOINT": "http://minio:9000"}, want: "IMAGE_S3_ENDPOINT:"},
		"S3 bucket but local":    {env: map[string]string{"IMAGE_S3_BUCKET": "images"}, want: "IMAGE_S3_BUCKET:"},
		"S3 key but local":       {env: map[string]string{"IMAGE_S3_SECRET_KEY": "x"}, want: "IMAGE_S3_SECRET_KEY:"},
		"no endpoint":            {s3: true, env: map[string]string{"IMAGE_S3_ENDPOINT": ""}, want: "IMAGE_S3_ENDPOINT:"},
		"endpoint without http":  {s3: true, env: map[string]string{"IMAGE_S3_ENDPOINT": "minio:9000"}, want: "IMAGE_S3_ENDPOINT:"},
		"endpoint with a path":   {s3: true, env: map[string]string{"IMAGE_S3_ENDPOINT": "http://minio:9000/images"}, want: "IMAGE_S3_ENDPOINT:"},
		"no bucket":              {s3: true, env: map[string]string{"IMAGE_S3_BUCKET": ""}, want: "IMAGE_S3_BUCKET:"},
		"bucket with capitals":   {s3: true, env: map[string]string{"IMAGE_S3_BUCKET": "Images"}, want: "IMAGE_S3_BUCKET:"},
		"no secret key":          {s3: true, env: map[string]string{"IMAGE_S3_SECRET_KEY": ""}, want: "IMAGE_S3_ACCESS_KEY:"},
		"no access key":          {s3: true, env: map[string]string{"IMAGE_S3_ACCESS_KEY": ""}, want: "IMAGE_S3_ACCESS_KEY:"},
		"bad path style":         {s3: true, env: map[string]string{"IMAGE_S3_PATH_STYLE": "yes"}, want: "IMAGE_S3_PATH_STYLE:"},
		"tiny timeout":           {s3: true, env: map[string]string{"IMAGE_S3_TIMEOUT": "1ms"}, want: "IMAGE_S3_TIMEOUT:"},
		"empty region":           {s3: true, env: map[string]string{"IMAGE_S3_REGION": ""}, want: "IMAGE_S3_REGION:"},
		"directory with S3":      {s3: true, env: map[string]string{"IMAGE_STORAGE_PATH": "/var/images"}, want: "IMAGE_STORAGE_PATH:"},
		"timeout not a duration": {s3: true, env: map[string]string{"IMAGE_S3_TIMEOUT": "soon"}, want: "IMAGE_S3_TIMEOUT:"},
	} {
		t.Run(name, func(t *testing.T) {
			clearImageStoreEnv(t)
			if tc.s3 {
				s3Env(t)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := Load()
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
}

// The other tests start from an environment without image store variables too.
func init() { allVars = append(allVars, imageStoreVars...) }
