/**
 * Preloaded (`node --import`) into every process the bench starts: when the runner that started
 * it goes away without cleaning up (SIGKILL, crash), the child is re-parented and exits by itself
 * within a second. One unref'd timer; nothing else.
 */
const parent = process.ppid
const timer = setInterval(() => {
  if (process.ppid !== parent) {
    try { process.kill(process.pid, "SIGTERM") } catch {}
    setTimeout(() => process.exit(1), 3_000).unref()
  }
}, 1_000)
timer.unref()
