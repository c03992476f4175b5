package metrics

import (
	"github.com/cockroachdb/pebble/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// pebbleCollector reports Pebble's own metrics at scrape time.
type pebbleCollector struct{ m *Metrics }

type pebbleMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(*pebble.Metrics) float64
}

func pebbleDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("extenddb_pebble_"+name, help, nil, nil)
}

// pebbleMetrics is the selection users look at first: compactions and
// flushes, memtables, the block cache and its hit rate, read amplification
// and disk use.
var pebbleMetrics = []pebbleMetric{
	{pebbleDesc("compactions_total", "Compactions completed."), prometheus.CounterValue,
		func(m *pebble.Metrics) float64 { return float64(m.Compact.Count) }},
	{pebbleDesc("compaction_debt_bytes", "Estimated bytes to compact for the LSM to reach a stable state."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.Compact.EstimatedDebt) }},
	{pebbleDesc("compactions_in_progress", "Compactions running now."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.Compact.NumInProgress) }},
	{pebbleDesc("flushes_total", "Memtable flushes completed."), prometheus.CounterValue,
		func(m *pebble.Metrics) float64 { return float64(m.Flush.Count) }},
	{pebbleDesc("memtable_bytes", "Bytes allocated by memtables."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.MemTable.Size) }},
	{pebbleDesc("memtables", "Memtables."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.MemTable.Count) }},
	{pebbleDesc("block_cache_bytes", "Bytes in the block cache."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.BlockCache.Size) }},
	{pebbleDesc("block_cache_hits_total", "Block cache hits."), prometheus.CounterValue,
		func(m *pebble.Metrics) float64 { return float64(m.BlockCache.Hits) }},
	{pebbleDesc("block_cache_misses_total", "Block cache misses."), prometheus.CounterValue,
		func(m *pebble.Metrics) float64 { return float64(m.BlockCache.Misses) }},
	{pebbleDesc("block_cache_hit_ratio", "Block cache hits / (hits + misses) since start; 0 before any lookup."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 {
			if n := m.BlockCache.Hits + m.BlockCache.Misses; n > 0 {
				return float64(m.BlockCache.Hits) / float64(n)
			}
			return 0
		}},
	{pebbleDesc("read_amplification", "Sublevels a point read may have to look in."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.ReadAmp()) }},
	{pebbleDesc("disk_usage_bytes", "Bytes on disk (sstables, WAL, blobs)."), prometheus.GaugeValue,
		func(m *pebble.Metrics) float64 { return float64(m.DiskSpaceUsage()) }},
}

func (pebbleCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, pm := range pebbleMetrics {
		ch <- pm.desc
	}
}

func (c pebbleCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.RLock()
	get := c.m.pebble
	c.m.mu.RUnlock()
	if get == nil {
		return
	}
	m := get()
	if m == nil {
		return
	}
	for _, pm := range pebbleMetrics {
		ch <- prometheus.MustNewConstMetric(pm.desc, pm.kind, pm.value(m))
	}
}
