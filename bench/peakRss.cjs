// Preloaded by bench/scale.ts (`node --require bench/peakRss.cjs …`): at the process's exit, writes its peak resident
// set size in KiB (process.resourceUsage().maxRSS) to the file named by DQCTL_BENCH_RSS_FILE.
const { writeFileSync } = require('node:fs');

const file = process.env.DQCTL_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      writeFileSync(file, String(process.resourceUsage().maxRSS));
    } catch {
      // the bench reports 0 when the figure is missing
    }
  });
}
