import { buildServer } from './src/server/buildServer.js';
import { openStore } from './src/store/openStore.js';
const store = await openStore({ databaseUrl: process.argv[2] });
const app = await buildServer({ store, schedules: false, logger: false });
const typing = process.argv[3];
const t0 = performance.now(); await app.inject({ method: 'GET', url: '/api/objects?limit=100&page=1' }); console.log('cold', (performance.now()-t0).toFixed(0));
for (let round = 0; round < 3; round++) {
  const line: string[] = [];
  for (let i = 1; i <= typing.length; i++) {
    const q = typing.slice(0, i);
    const s = performance.now();
    const r = await app.inject({ method: 'GET', url: `/api/objects?limit=100&page=1&search=${encodeURIComponent(q)}` });
    line.push(`${q.slice(-1)}:${(performance.now() - s).toFixed(0)}`);
    if (round === 2 && i === typing.length) console.log(JSON.parse(r.body).total, r.body.length);
  }
  console.log(line.join(' '));
}
const s = performance.now(); await app.inject({ method: 'GET', url: '/api/overview' }); console.log('overview', (performance.now()-s).toFixed(0));
await app.close(); await store.close();
