package metrics

import (
	"log/slog"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	diskFreeDesc = prometheus.NewDesc("moviesdiary_data_dir_free_bytes",
		"Bytes available to the process on the file system holding DATA_DIR (the database, its WAL and the images).", nil, nil)
	diskSizeDesc = prometheus.NewDesc("moviesdiary_data_dir_size_bytes",
		"Size of the file system holding DATA_DIR.", nil, nil)
)

// WatchDisk reports the free and total space of the file system holding dir, read at each
// scrape: SQLite fails every write once the disk is full, so the alert must come before.
func (s *Server) WatchDisk(dir string, log *slog.Logger) {
	s.reg.MustRegister(&diskCollector{dir: dir, log: log})
}

type diskCollector struct {
	dir string
	log *slog.Logger
}

func (c *diskCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- diskFreeDesc
	ch <- diskSizeDesc
}

func (c *diskCollector) Collect(ch chan<- prometheus.Metric) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(c.dir, &st); err != nil {
		c.log.Warn("metrics: cannot read the data directory's file system", "dir", c.dir, "error", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(diskFreeDesc, prometheus.GaugeValue, float64(st.Bavail)*float64(st.Bsize))
	ch <- prometheus.MustNewConstMetric(diskSizeDesc, prometheus.GaugeValue, float64(st.Blocks)*float64(st.Bsize))
}
