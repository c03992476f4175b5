package console

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

func (c *console) throttle(w http.ResponseWriter, r *http.Request) {
	tc, ok := c.openTable(w, r, "throttle", "Throttling", ActionThrottle, "")
	if !ok {
		return
	}
	tc.Data = c.opts.Recorder != nil
	c.render(w, r, http.StatusOK, "throttle", tc.page)
}

// timeline serves the throttling page's data as JSON; the page polls it.
func (c *console) timeline(w http.ResponseWriter, r *http.Request) {
	ns, _, err := c.namespace(r)
	table := r.URL.Query().Get("t")
	var st emulator.ThrottleStatus
	if err == nil {
		err = c.opts.Engine.Authorize(r.Context(), ns, ActionThrottle, table, "")
	}
	if err == nil {
		st, err = c.opts.Engine.TableThrottleStatus(ns, table)
	}
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(statusOf(err))
		_ = json.NewEncoder(w).Encode(map[string]string{"error": errorText(err)})
		return
	}
	secs, _ := strconv.Atoi(r.URL.Query().Get("seconds"))
	if secs == 0 {
		secs = 120
	}
	tl := Timeline{Points: []Point{}, Events: []ThrottleMark{}, Hot: []HotKey{}}
	if c.opts.Recorder != nil {
		tl = c.opts.Recorder.Timeline(ns, table, secs)
	}
	if c.opts.Engine.Authorize(r.Context(), ns, ActionGetInsights, table, "") != nil {
		tl.Hot = []HotKey{} // the hottest keys are Contributor Insights' to show
	}
	tl.Status = st
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(tl)
}

// streamView is the stream page's data.
type streamView struct {
	Arn, ViewType string
	Records       []streamRow
}

type streamRow struct {
	Seq, Event, Time string
	Keys, New, Old   string
}

// maxStreamRows is how many of the latest records the stream page shows.
const maxStreamRows = 50

func (c *console) stream(w http.ResponseWriter, r *http.Request) {
	tc, ok := c.openTable(w, r, "stream", "Stream", actionDescribeTable, "")
	if !ok {
		return
	}
	v := &streamView{Arn: tc.desc.LatestStreamArn}
	tc.Data = v
	if v.Arn != "" {
		for _, action := range []string{actionDescribeStream, actionGetShardIterator, actionGetRecords} {
			if err := c.opts.Engine.Authorize(r.Context(), tc.NS, action, v.Arn, ""); err != nil {
				tc.Error = errorText(err)
				c.render(w, r, statusOf(err), "stream", tc.page)
				return
			}
		}
		if err := c.latestRecords(r, tc.NS, v); err != nil {
			tc.Error = errorText(err)
		}
	}
	c.render(w, r, http.StatusOK, "stream", tc.page)
}

// latestRecords reads the newest shards' records, keeping the last
// maxStreamRows (newest first). It reads at most the two newest shards.
func (c *console) latestRecords(r *http.Request, ns api.Namespace, v *streamView) error {
	ctx, eng := r.Context(), c.opts.Engine
	var shards []api.StreamShard
	var from *string
	for {
		d, err := eng.DescribeStream(ctx, ns, &api.DescribeStreamInput{StreamArn: &v.Arn, ExclusiveStartShardId: from})
		if err != nil {
			return err
		}
		v.ViewType = d.StreamDescription.StreamViewType
		shards = append(shards, d.StreamDescription.Shards...)
		if d.StreamDescription.LastEvaluatedShardId == "" {
			break
		}
		from = ptr(d.StreamDescription.LastEvaluatedShardId)
	}
	var recs []api.StreamRecord
	for _, sh := range shards[max(0, len(shards)-2):] {
		it, err := eng.GetShardIterator(ctx, ns, &api.GetShardIteratorInput{StreamArn: &v.Arn, ShardId: ptr(sh.ShardId), ShardIteratorType: ptr("TRIM_HORIZON")})
		if err != nil {
			return err
		}
		iter := it.ShardIterator
		for iter != "" {
			out, err := eng.GetRecords(ctx, ns, &api.GetRecordsInput{ShardIterator: &iter, Limit: ptr(int64(1000))})
			if err != nil {
				return err
			}
			recs = append(recs, out.Records...)
			if len(recs) > maxStreamRows {
				recs = recs[len(recs)-maxStreamRows:]
			}
			if len(out.Records) == 0 {
				break // the open shard's end: nothing newer yet
			}
			iter = out.NextShardIterator
		}
	}
	for i := len(recs) - 1; i >= 0; i-- {
		d := recs[i].Dynamodb
		v.Records = append(v.Records, streamRow{Seq: d.SequenceNumber, Event: recs[i].EventName,
			Time: funcs["time"].(func(float64) string)(float64(d.ApproximateCreationDateTime)),
			Keys: oneLine(d.Keys), New: oneLine(d.NewImage), Old: oneLine(d.OldImage)})
	}
	return nil
}

func oneLine(it av.Item) string {
	if it == nil {
		return ""
	}
	b, _ := json.Marshal(plainMap(it))
	return string(b)
}

func plainMap(it av.Item) map[string]any {
	m := make(map[string]any, len(it))
	for k, v := range it {
		m[k] = plain(v)
	}
	return m
}
