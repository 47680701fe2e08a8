// Package image is the worker's image handlers: conversion of stored images to WebP, their
// thumbnails, and clean-up of a deleted movie's poster objects.
package image

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"moviesdiary/internal/domain"
)

// Objects is the image storage. A key it cannot store is KindInvalid; a missing object is
// KindNotFound from Get and success from Delete.
type Objects interface {
	Exists(ctx context.Context, key string) (bool, error)
	Get(ctx context.Context, key string) ([]byte, error)
	Put(ctx context.Context, key string, data []byte) error
	Delete(ctx context.Context, key string) error
}

// Refs is where the database refers to images.
type Refs interface {
	// SwapImageKey points every reference to old at new.
	SwapImageKey(ctx context.Context, old, new string) (int64, error)
	// ImageKeyInUse reports whether anything refers to key.
	ImageKeyInUse(ctx context.Context, key string) (bool, error)
}

// deleteUnused deletes the object under key unless something still refers to it, and reports
// whether nothing does (the object is gone now, or never was). A key that is not a storage key
// (a remote poster URL) is not ours and is left alone.
func deleteUnused(ctx context.Context, refs Refs, objects Objects, key string, log *slog.Logger) (unused bool, err error) {
	used, err := refs.ImageKeyInUse(ctx, key)
	if err != nil {
		return false, err
	}
	if used {
		return false, nil
	}
	err = objects.Delete(ctx, key)
	if errors.Is(err, domain.ErrInvalid) {
		log.DebugContext(ctx, "not a stored image key; left alone", "key", key)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete image %s: %w", key, err)
	}
	return true, nil
}
