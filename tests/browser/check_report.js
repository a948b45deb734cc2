// check_report.js REPORT.html SCREENSHOT.png: opens a page of `flce report` in headless
// Chromium (Debian's /usr/bin/chromium, driven by playwright-core) at 1280 x 800 and fails
// (exit 1, one line per fault) when an image does not load, a local link points to a missing
// file or to an anchor its page does not have, a per-round figure's legend has more than 12
// entries, or the page logs an error; with FIRST_SCREEN_VERDICT=1, also when the first screen
// (the top 800 pixels) holds no verdict figure (the claims' forest plot). Writes a screenshot:
// the full page, or its top SHOT_MAX_HEIGHT pixels (SHOT_MAX_HEIGHT=800: the first screen).
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');
const { fileURLToPath, pathToFileURL } = require('url');

(async () => {
  const [report, shot] = process.argv.slice(2);
  if (!report || !shot) { console.error('usage: node check_report.js REPORT.html SCREENSHOT.png'); process.exit(2); }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
    timeout: 0, // no time limit of its own: a slow or loaded machine's start is not a failure (ctest's TIMEOUT guards a hang)
  });
  const faults = [];
  const W = 1280, H = 800;
  const page = await browser.newPage({ viewport: { width: W, height: H } });
  page.setDefaultTimeout(0); // as above: playwright's 30 s per step is a speed check
  page.on('console', m => { if (m.type() === 'error') faults.push(`console error: ${m.text()}`); });
  page.on('pageerror', e => faults.push(`page error: ${e.message}`));
  page.on('requestfailed', r => faults.push(`failed to load ${r.url()}`));
  await page.goto(pathToFileURL(path.resolve(report)).href, { waitUntil: 'load', timeout: 0 });
  const images = await page.evaluate(() => Array.from(document.images).map(i => ({ src: i.src, ok: i.complete && i.naturalWidth > 0 })));
  for (const i of images) if (!i.ok) faults.push(`image does not load: ${i.src}`);
  const links = await page.evaluate(() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href));
  const ids = {}; // the ids of each local page linked to
  for (const l of links) {
    if (!l.startsWith('file:')) continue;
    const [file, anchor] = l.split('#');
    const f = fileURLToPath(file);
    if (!fs.existsSync(f)) { faults.push(`broken link: ${l}`); continue; }
    if (anchor === undefined || anchor === '') continue;
    if (!(f in ids)) {
      ids[f] = new Set();
      if (/\.html?$/.test(f)) for (const m of fs.readFileSync(f, 'utf8').matchAll(/\sid=['"]([^'"]+)['"]/g)) ids[f].add(m[1]);
    }
    if (!ids[f].has(decodeURIComponent(anchor))) faults.push(`broken anchor: ${l}`);
  }
  // per-round figures (the configurations', and each run's): at most 12 legend entries (gnuplot's
  // SVG gives each titled plot a <title>; untitled ones are named gnuplot_plot_N)
  for (const i of images) {
    const m = i.src.match(/\/((conf\d+_(rounds|ablations))|accuracy|macro_f1|kl|shapley_distance)\.svg$/);
    if (!m || !i.ok || !i.src.startsWith('file:') || !fs.existsSync(fileURLToPath(i.src))) continue;
    const svg = fs.readFileSync(fileURLToPath(i.src), 'utf8');
    const n = Array.from(svg.matchAll(/<title>([^<]*)<\/title>/g)).filter(t => !t[1].startsWith('gnuplot_plot_')).length;
    if (n > 12) faults.push(`figure ${m[1]}.svg: ${n} legend entries (at most 12)`);
  }
  if (process.env.FIRST_SCREEN_VERDICT === '1') {
    const top = await page.evaluate(() => {
      const v = document.querySelector('img[src^="forest."]');
      return v ? v.getBoundingClientRect().top + window.scrollY : -1;
    });
    if (top < 0) faults.push('the first screen holds no verdict figure: the page has none (img forest.svg)');
    else if (top >= H - 40) faults.push(`the first screen holds no verdict figure: the forest plot begins at ${Math.round(top)} px, below the first ${H}`);
  }
  const maxh = parseInt(process.env.SHOT_MAX_HEIGHT || '0', 10);
  if (maxh > 0) {
    const h = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: W, height: Math.min(h, maxh) } });
  } else {
    await page.screenshot({ path: shot, fullPage: true });
  }
  await browser.close();
  for (const f of faults) console.log(`FAIL: ${f}`);
  console.log(`${images.length} images, ${links.length} links, ${faults.length} faults`);
  process.exit(faults.length ? 1 : 0);
})().catch(e => { console.log(`FAIL: ${e.message}`); process.exit(1); });
