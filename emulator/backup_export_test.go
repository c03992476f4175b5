package emulator

import "github.com/extenddb/extenddb/emulator/internal/backups"

// WaitBackups waits for every running backup and restore job to end, so a
// test can rely on a backup being AVAILABLE and a restored table ACTIVE.
func WaitBackups(e *Engine) { e.bk.Tasks.Wait() }

// SetBackupAfterChunk installs a hook run after each committed chunk of a
// backup ("backup") or restore ("restore") job; set it while no job runs.
func SetBackupAfterChunk(e *Engine, f func(job string, rows int)) { e.bk.AfterChunk = f }

// BackupChunk is how many rows a backup or restore job commits at a time.
const BackupChunk = backups.Chunk
