package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Media is the worker's media settings (posters, image conversion, enrichment) and the image
// directory both binaries share: the worker writes it, the server serves GET /images/{key}.
type Media struct {
	// TMDBImageURL is TMDb's image CDN; posters download from TMDBImageURL/w500/<file>.
	TMDBImageURL string `envconfig:"TMDB_IMAGE_URL" default:"https://image.tmdb.org/t/p"`
	// TMDBTimeout bounds one TMDb API call; ImageFetchTimeout one image download.
	TMDBTimeout       time.Duration `envconfig:"TMDB_TIMEOUT" default:"10s"`
	ImageFetchTimeout time.Duration `envconfig:"POSTER_FETCH_TIMEOUT" default:"30s"`
	// ImageMaxBytes bounds a downloaded image; a larger one fails for good.
	ImageMaxBytes int64 `envconfig:"IMAGE_MAX_BYTES" default:"10485760"`
	// ImageStoragePath is the image directory; empty means DATA_DIR/images.
	ImageStoragePath string `envconfig:"IMAGE_STORAGE_PATH"`
	// ImageConversionEnabled converts every stored image to WebP.
	ImageConversionEnabled bool `envconfig:"IMAGE_CONVERSION_ENABLED" default:"false"`
	// ImageConversionQuality is the lossy WebP quality, 1..100.
	ImageConversionQuality int `envconfig:"IMAGE_CONVERSION_QUALITY" default:"80"`
	// EnrichmentBatch bounds how many stale movies one run of the staleness job re-requests.
	EnrichmentBatch int `envconfig:"ENRICHMENT_STALENESS_BATCH" default:"100"`
	// JobInterval is how often the worker's periodic jobs run.
	JobInterval time.Duration `envconfig:"WORKER_JOB_INTERVAL" default:"1h"`
}

// ImageDir is the image directory: IMAGE_STORAGE_PATH, else "images" inside DATA_DIR, so a
// server and a worker sharing the data directory share the images.
func (c Config) ImageDir() string {
	if c.ImageStoragePath != "" {
		return c.ImageStoragePath
	}
	return filepath.Join(c.DataDir, "images")
}

// validateMedia checks the media variables.
func (c Config) validateMedia() error {
	switch {
	case !strings.HasPrefix(c.TMDBImageURL, "http://") && !strings.HasPrefix(c.TMDBImageURL, "https://"):
		return fmt.Errorf("TMDB_IMAGE_URL: %q must start with http:// or https://", c.TMDBImageURL)
	case c.TMDBTimeout < 100*time.Millisecond:
		return fmt.Errorf("TMDB_TIMEOUT: %s must be at least 100ms", c.TMDBTimeout)
	case c.ImageFetchTimeout < 100*time.Millisecond:
		return fmt.Errorf("POSTER_FETCH_TIMEOUT: %s must be at least 100ms", c.ImageFetchTimeout)
	case c.ImageMaxBytes < 1024:
		return fmt.Errorf("IMAGE_MAX_BYTES: %d must be at least 1024", c.ImageMaxBytes)
	case c.ImageConversionQuality < 1 || c.ImageConversionQuality > 100:
		return fmt.Errorf("IMAGE_CONVERSION_QUALITY: %d must be between 1 and 100", c.ImageConversionQuality)
	case c.EnrichmentBatch < 1 || c.EnrichmentBatch > 10000:
		return fmt.Errorf("ENRICHMENT_STALENESS_BATCH: %d must be between 1 and 10000", c.EnrichmentBatch)
	case c.JobInterval < time.Second:
		return fmt.Errorf("WORKER_JOB_INTERVAL: %s must be at least 1s", c.JobInterval)
	}
	return nil
}
