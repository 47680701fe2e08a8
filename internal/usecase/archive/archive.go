// Package archive is the account archive: a zip of JSON and CSV files holding everything a user
// keeps on an instance (profile, settings, diary, watchlist, goals, follows, blocks, wrap-ups,
// import profiles), streamed out (GET /api/v1/account/archive) and read back into an account of
// any instance (POST /api/v1/account/archive), where importing it twice adds nothing.
package archive

import (
	"context"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/movie"
	"moviesdiary/internal/usecase/profile"
	"moviesdiary/internal/usecase/review"
	"moviesdiary/internal/usecase/watchlist"
)

// Format and Version name the archive's layout in its manifest: an archive of another format or
// a version this build does not know is refused.
const (
	Format  = "moviesdiary-account-archive"
	Version = 1
)

// The files of an archive, in the order they are written; the manifest comes first.
const (
	fileManifest       = "manifest.json"
	fileProfile        = "profile.json"
	fileSettings       = "settings.json"
	fileDiaryCSV       = "diary.csv"
	fileDiaryJSON      = "diary.json"
	fileWatchlistCSV   = "watchlist.csv"
	fileWatchlistJSON  = "watchlist.json"
	fileGoalsCSV       = "goals.csv"
	fileGoalsJSON      = "goals.json"
	fileFollowingCSV   = "following.csv"
	fileFollowingJSON  = "following.json"
	fileFollowersCSV   = "followers.csv"
	fileFollowersJSON  = "followers.json"
	fileBlocksCSV      = "blocks.csv"
	fileBlocksJSON     = "blocks.json"
	fileWrapUpsJSON    = "wrapups.json"
	fileImportProfiles = "import_profiles.json"
)

// Files are the names an archive may hold, in the order Export writes them.
var Files = []string{fileManifest, fileProfile, fileSettings, fileDiaryCSV, fileDiaryJSON, fileWatchlistCSV,
	fileWatchlistJSON, fileGoalsCSV, fileGoalsJSON, fileFollowingCSV, fileFollowingJSON, fileFollowersCSV,
	fileFollowersJSON, fileBlocksCSV, fileBlocksJSON, fileWrapUpsJSON, fileImportProfiles}

// Limits of an archive read back. An archive of a 100,000-review diary is a few MiB compressed
// and some tens uncompressed; these bounds refuse a zip bomb before anything is read.
const (
	// MaxBytes is the largest archive upload.
	MaxBytes = 64 << 20
	// MaxUncompressedBytes bounds the sum of the files' uncompressed sizes.
	MaxUncompressedBytes = 256 << 20
	// maxSmallFileBytes bounds each JSON file but the diary's (which import does not read).
	maxSmallFileBytes = 32 << 20
)

// Manifest is manifest.json: what the archive is, where and when it was made, and whose.
type Manifest struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	Instance   string    `json:"instance"`
	ExportedAt time.Time `json:"exported_at"`
	User       Owner     `json:"user"`
	Files      []string  `json:"files"`
}

// Owner is the account an archive was exported from.
type Owner struct {
	ID       uuid.UUID `json:"id"`
	Username string    `json:"username"`
	Handle   string    `json:"handle"`
	ActorURL string    `json:"actor_url"`
}

// ProfileFile is profile.json. Images are named by their storage keys only (the archive does
// not carry them).
type ProfileFile struct {
	Username    string         `json:"username"`
	Email       string         `json:"email"`
	CreatedAt   time.Time      `json:"created_at"`
	DisplayName string         `json:"display_name"`
	Bio         string         `json:"bio"`
	AlsoKnownAs string         `json:"also_known_as"`
	Fields      []ProfileField `json:"fields"`
	AvatarKey   string         `json:"avatar_key"`
	BannerKey   string         `json:"banner_key"`
}

// ProfileField is one name/value pair of a profile.
type ProfileField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// SettingsFile is settings.json: what federates, and whether the wrap-ups are public.
type SettingsFile struct {
	Federation struct {
		Reviews   bool `json:"reviews"`
		Watchlist bool `json:"watchlist"`
		Goals     bool `json:"goals"`
	} `json:"federation"`
	WrapUpsPublic bool `json:"wrapups_public"`
}

// WatchlistEntry is one movie of watchlist.json (and a row of watchlist.csv).
type WatchlistEntry struct {
	Title              string    `json:"title"`
	Year               int       `json:"year"`
	Director           *string   `json:"director"`
	ExternalMetadataID *string   `json:"external_metadata_id"`
	AddedAt            time.Time `json:"added_at"`
}

var watchlistHeader = []string{"title", "year", "director", "external_metadata_id", "added_at"}

// Goal is one yearly goal of goals.json (and goals.csv).
type Goal struct {
	Year        int `json:"year"`
	TargetCount int `json:"target_count"`
}

var goalsHeader = []string{"year", "target_count"}

// Actor is one entry of following.json, followers.json and blocks.json: the handle
// (user@domain, local accounts under this instance's domain) and the actor URL.
type Actor struct {
	Handle      string  `json:"handle"`
	ActorURL    string  `json:"actor_url"`
	DisplayName *string `json:"display_name"`
}

var actorHeader = []string{"handle", "actor_url", "display_name"}

// WrapUp is one wrap-up of wrapups.json, its report as the API serves it.
type WrapUp struct {
	ID           uuid.UUID  `json:"id"`
	StartDate    string     `json:"start_date"`
	EndDate      string     `json:"end_date"`
	Status       string     `json:"status"`
	InstanceWide bool       `json:"instance_wide"`
	CreatedAt    time.Time  `json:"created_at"`
	CompletedAt  *time.Time `json:"completed_at"`
	Report       any        `json:"report"`
}

// ImportProfile is one saved import mapping of import_profiles.json.
type ImportProfile struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	Mappings  []Mapping `json:"mappings"`
}

// Mapping is one column mapping of an import profile.
type Mapping struct {
	SourceColumn string   `json:"source_column"`
	Field        string   `json:"field"`
	RatingScale  *float64 `json:"rating_scale,omitempty"`
	DateFormat   string   `json:"date_format,omitempty"`
}

// The ports below are the use cases an archive is read from and written into, each as small as
// the archive needs it.

// Accounts reads and changes the user's account and profile.
type Accounts interface {
	Get(ctx context.Context, me uuid.UUID) (domain.User, error)
	Update(ctx context.Context, c profile.UpdateCommand) error
	SetFields(ctx context.Context, me uuid.UUID, fields []domain.ProfileField) error
}

// Users finds a local user by username (a follow or block of this instance's account).
type Users interface {
	UserByUsername(ctx context.Context, username string) (domain.User, error)
}

// Settings are the federation flags.
type Settings interface {
	Settings(ctx context.Context, me uuid.UUID) (domain.FederationSettings, error)
	SaveSettings(ctx context.Context, me uuid.UUID, fs domain.FederationSettings) error
}

// WrapUps are the user's wrap-ups and whether they are public.
type WrapUps interface {
	List(ctx context.Context, caller uuid.UUID) ([]domain.WrapUp, error)
	Public(ctx context.Context, me uuid.UUID) (bool, error)
	SetPublic(ctx context.Context, me uuid.UUID, public bool) error
}

// Diary streams the user's reviews (review.Exporter).
type Diary interface {
	Export(ctx context.Context, user uuid.UUID, yield func(review.Entry) error) error
}

// Watchlists reads a watchlist a page at a time and restores entries.
type Watchlists interface {
	List(ctx context.Context, userID uuid.UUID, p domain.Page) (domain.Paged[watchlist.Entry], error)
	Restore(ctx context.Context, userID uuid.UUID, req movie.Request, addedAt time.Time) (bool, error)
}

// Goals reads and creates yearly goals.
type Goals interface {
	List(ctx context.Context, user uuid.UUID) ([]domain.GoalProgress, error)
	Create(ctx context.Context, me uuid.UUID, year, target int) (domain.GoalProgress, error)
}

// Social is the follow graph: its lists, handles, and the follow and block commands (a remote
// follow goes out through federation's outbox as a Follow activity).
type Social interface {
	Following(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
	Followers(ctx context.Context, user uuid.UUID) ([]domain.Actor, error)
	Blocked(ctx context.Context, me uuid.UUID) ([]domain.Actor, error)
	ActorURL(id uuid.UUID) string
	Follow(ctx context.Context, me uuid.UUID, handle string) error
	Block(ctx context.Context, me uuid.UUID, actorURL string) error
}

// Imports is the diary import (the archive's diary.csv goes in through it, deduplicated as any
// import is) and the saved import profiles.
type Imports interface {
	Create(ctx context.Context, u importer.Upload) (importer.Created, error)
	Confirm(ctx context.Context, userID, id uuid.UUID, indices []int, federate bool) (importer.ConfirmResult, error)
	Profiles(ctx context.Context, userID uuid.UUID) ([]importer.Profile, error)
	RestoreProfile(ctx context.Context, userID uuid.UUID, name string, ms []importer.Mapping, createdAt time.Time) (bool, error)
}

// Deps are the service's collaborators.
type Deps struct {
	// BaseURL is this instance's public URL: its host is the domain of local handles.
	BaseURL   string
	Accounts  Accounts
	Users     Users
	Settings  Settings
	WrapUps   WrapUps
	Diary     Diary
	Watchlist Watchlists
	Goals     Goals
	Social    Social
	Imports   Imports
	// Now is the clock (exported_at); nil for time.Now.
	Now func() time.Time
}
