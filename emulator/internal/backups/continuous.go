package backups

import (
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// UpdateContinuousBackups and DescribeContinuousBackups: the table's PITR
// setting and its restorable window.

// Apply returns the setting spec makes of p at now; enabled reports that
// it turned PITR on. Turning PITR off drops the history: the caller stages
// DropHistory in the batch that saves the table.
func (p PITR) Apply(spec *api.PointInTimeRecoverySpecification, now time.Time) (np PITR, enabled bool) {
	np = p
	if *spec.PointInTimeRecoveryEnabled {
		if !np.PITREnabled {
			np.PITREnabled, np.PITREnabledAt, enabled = true, now, true
		}
		np.PITRDays = DefaultRecoveryDays
		if spec.RecoveryPeriodInDays != nil {
			np.PITRDays = *spec.RecoveryPeriodInDays
		}
	} else {
		np.PITREnabled, np.PITRDays, np.PITREnabledAt = false, 0, time.Time{}
	}
	return np, enabled
}

// Describe is the ContinuousBackupsDescription of a table with setting p
// at now (lag as Window's).
func (p *PITR) Describe(now time.Time, lag time.Duration) *api.ContinuousBackupsDescription {
	d := &api.ContinuousBackupsDescription{
		ContinuousBackupsStatus:        "ENABLED",
		PointInTimeRecoveryDescription: &api.PointInTimeRecoveryDescription{PointInTimeRecoveryStatus: "DISABLED"},
	}
	if p.PITREnabled {
		earliest, latest := p.Window(now, lag)
		d.PointInTimeRecoveryDescription = &api.PointInTimeRecoveryDescription{
			PointInTimeRecoveryStatus:  "ENABLED",
			RecoveryPeriodInDays:       refOf(p.PITRDays),
			EarliestRestorableDateTime: refOf(api.EpochSeconds(earliest)),
			LatestRestorableDateTime:   refOf(api.EpochSeconds(latest)),
		}
	}
	return d
}

// UpdateContinuousBackups enables or disables point-in-time recovery.
func UpdateContinuousBackups(c Core, ns api.Namespace, in *api.UpdateContinuousBackupsInput) (*api.UpdateContinuousBackupsOutput, error) {
	if in == nil {
		in = &api.UpdateContinuousBackupsInput{}
	}
	var v shape.Violations
	v.TableRef("tableName", in.TableName)
	spec := in.PointInTimeRecoverySpecification
	if spec == nil {
		v.Null("pointInTimeRecoverySpecification")
	} else {
		if spec.PointInTimeRecoveryEnabled == nil {
			v.Null("pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled")
		}
		v.Min("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.RecoveryPeriodInDays, 1)
		v.Max("pointInTimeRecoverySpecification.recoveryPeriodInDays", spec.RecoveryPeriodInDays, 35)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if !*spec.PointInTimeRecoveryEnabled && spec.RecoveryPeriodInDays != nil {
		return nil, api.Validation("Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	}
	p, now, err := c.SetPITR(ns, in.TableName, spec, c.Now())
	if err != nil {
		return nil, err
	}
	return &api.UpdateContinuousBackupsOutput{ContinuousBackupsDescription: p.Describe(now, c.PITRLag())}, nil
}
