package main

import (
	"context"
	"log/slog"

	"moviesdiary/internal/adapters/imaging"
	"moviesdiary/internal/adapters/storage"
	"moviesdiary/internal/adapters/tmdb"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/enrichment"
	"moviesdiary/internal/usecase/image"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/poster"
	"moviesdiary/internal/usecase/search"
	"moviesdiary/internal/usecase/wrapup"
)

// mediaHandlers are the posters, images, search, enrichment and wrap-up handlers. Without
// TMDB_API_KEY the poster sync, the movie images and the enrichments are not registered (said
// once here); without IMAGE_CONVERSION_ENABLED the conversion is not (the thumbnails always
// are). (Their periodic jobs are in maintenance.go.)
func mediaHandlers(ctx context.Context, cfg config.Config, store store, log *slog.Logger) ([]delivery.Handler, error) {
	// The image store (directory or bucket) is open for the process's life, like the database.
	images, err := openImages(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	idx := search.NewHandlers(store)
	hs := []delivery.Handler{
		handler(image.CleanupName, image.CleanupTypes, image.NewCleanup(store, images, log).Handle),
		handler(search.IndexName, search.IndexTypes, idx.Index),
		handler(search.CleanupName, search.CleanupTypes, idx.Cleanup),
		handler(search.ReindexName, search.ReindexTypes, idx.Reindex),
		handler(wrapup.GeneratorName, wrapup.GeneratorTypes, wrapup.NewGenerator(store, nil, log).Handle),
	}
	if cfg.TMDBAPIKey != "" {
		client := tmdb.NewClient(tmdb.Config{APIURL: cfg.TMDBAPIURL, ImageURL: cfg.TMDBImageURL, APIKey: cfg.TMDBAPIKey,
			Timeout: cfg.TMDBTimeout, ImageTimeout: cfg.ImageFetchTimeout, MaxImageBytes: cfg.ImageMaxBytes})
		src := tmdb.Enrichment{C: client}
		hs = append(hs,
			handler(poster.Name, poster.Types, poster.New(store, images, client, log).Handle),
			handler(poster.ImagesName, poster.ImagesTypes, poster.NewImages(store, images, client, log).Handle),
			handler(enrichment.MovieName, enrichment.MovieTypes, enrichment.NewMovies(store, src, nil, log).Handle),
			handler(enrichment.PersonName, enrichment.PersonTypes, enrichment.NewPeople(store, src, nil, log).Handle),
			// One client for all three: its pacer keeps resolution and enrichment under TMDb's rate together.
			// Its title searches are cached: a backfill of an old database meets the same titles
			// (remakes, namesakes of other years) many times.
			handler(movie.ResolutionName, movie.ResolutionTypes,
				movie.NewResolution(store, movie.NewSearchCache(client, movie.SearchCacheConfig{}), nil, log).Handle),
		)
	} else {
		log.Info("TMDB_API_KEY is not set: poster sync, movie images (backdrops, cast photos), movie/person enrichment and movie resolution by title are off")
	}
	enc := imaging.WebP{Quality: cfg.ImageConversionQuality}
	if cfg.ImageConversionEnabled {
		hs = append(hs, handler(image.ConversionName, image.ConversionTypes, image.NewConversion(store, images, enc.Encode, log).Handle))
	}
	// Thumbnails are WebP whether or not the full images are converted: they are what the
	// pages show.
	hs = append(hs, handler(image.ThumbnailsName, image.ThumbnailsTypes, image.NewThumbnails(images, enc.Thumbnails, log).Handle))
	return hs, nil
}

// openImages opens the image store IMAGE_STORAGE names and says which it is.
func openImages(ctx context.Context, cfg config.Config, log *slog.Logger) (storage.Store, error) {
	c := imageStorage(cfg)
	images, err := storage.Open(ctx, c)
	if err != nil {
		return nil, err
	}
	if c.Kind == storage.KindS3 {
		log.Info("images are kept in S3", "endpoint", c.S3.Endpoint, "bucket", c.S3.Bucket)
	} else {
		log.Info("images are kept in a directory", "dir", c.Dir)
	}
	return images, nil
}

// imageStorage copies the image store's settings into the storage adapter's configuration.
func imageStorage(cfg config.Config) storage.Config {
	return storage.Config{Kind: cfg.ImageStorage, Dir: cfg.ImageDir(), S3: storage.S3Config{
		Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, Region: cfg.S3Region, AccessKey: cfg.S3AccessKey,
		SecretKey: cfg.S3SecretKey, PathStyle: cfg.S3PathStyle, Timeout: cfg.S3Timeout,
	}}
}

// handler adapts a use-case handler (it sees the event only) to the delivery engine.
func handler(name string, types []string, handle func(context.Context, domain.Event) error) delivery.Handler {
	return delivery.Handler{Name: name, Types: types, Handle: func(ctx context.Context, e delivery.Envelope) error {
		return handle(ctx, e.Event)
	}}
}
