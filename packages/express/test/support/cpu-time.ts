// CPU time as the measure of work in the tests that guard against a hang or super-linear work (a
// denial of service), so that their bounds hold on a busy machine: wall-clock time grows with
// whatever else runs, the CPU time this process spends on a request does not.
//
// process.cpuUsage() is user + system time of the whole process: every thread counts, so the
// worker thread that reads a large document is measured with the request that sent it. Vitest's
// pool (the default, forks) runs each test file in a child process of its own, one file at a time,
// and a file's tests one after another: the delta is the work of the code under test (and of the
// test's own client), not of another test file. On the threads pool a test file would share its
// process with other files, so the measure refuses to run off the main thread.
//
// CPU_REPORT=<file> appends each measure (test name, ms) to the file: how the figures in the
// tests' comments were taken.
import { appendFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";
import { expect } from "vitest";

/** Starts a measure of this process's CPU time: call the result for the milliseconds spent since. */
export function cpuClock(): () => number {
  if (!isMainThread) throw new Error("CPU time is measured per process: run the test file in a process of its own (vitest pool forks)");
  const start = process.cpuUsage();
  return () => {
    const d = process.cpuUsage(start);
    const ms = (d.user + d.system) / 1000;
    if (process.env.CPU_REPORT) appendFileSync(process.env.CPU_REPORT, `${expect.getState().currentTestName}\t${ms.toFixed(0)}\n`);
    return ms;
  };
}
