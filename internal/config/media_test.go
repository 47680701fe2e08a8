package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var mediaVars = []string{"TMDB_IMAGE_URL", "TMDB_TIMEOUT", "POSTER_FETCH_TIMEOUT", "IMAGE_MAX_BYTES", "IMAGE_STORAGE_PATH",
	"IMAGE_CONVERSION_ENABLED", "IMAGE_CONVERSION_QUALITY", "ENRICHMENT_STALENESS_BATCH", "WORKER_JOB_INTERVAL"}

func clearMediaEnv(t *testing.T) {
	clearEnv(t)
	for _, v := range mediaVars {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

func TestMediaDefaults(t *testing.T) {
	clearMediaEnv(t)
	t.Setenv("DATA_DIR", "/srv/md")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.ImageDir() != filepath.Join("/srv/md", "images") || c.ImageConversionEnabled || c.ImageConversionQuality != 80 ||
		c.TMDBImageURL != "https://image.tmdb.org/t/p" || c.TMDBTimeout != 10*time.Second || c.ImageMaxBytes != 10<<20 ||
		c.EnrichmentBatch != 100 || c.JobInterval != time.Hour {
		t.Fatalf("media defaults: %+v", c.Media)
	}
	t.Setenv("IMAGE_STORAGE_PATH", "/var/images")
	if c, _ := Load(); c.ImageDir() != "/var/images" {
		t.Errorf("IMAGE_STORAGE_PATH ignored: %s", c.ImageDir())
	}
}

func TestMediaBadValues(t *testing.T) {
	for name, val := range map[string]string{
		"TMDB_IMAGE_URL":             "ftp://x",
		"TMDB_TIMEOUT":               "1ms",
		"IMAGE_MAX_BYTES":            "10",
		"IMAGE_CONVERSION_QUALITY":   "0",
		"IMAGE_CONVERSION_ENABLED":   "maybe",
		"ENRICHMENT_STALENESS_BATCH": "0",
		"WORKER_JOB_INTERVAL":        "10ms",
	} {
		t.Run(name, func(t *testing.T) {
			clearMediaEnv(t)
			t.Setenv(name, val)
			_, err := Load()
			if err == nil || !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("%s=%s: error %v, want one naming the variable", name, val, err)
			}
		})
	}
}
