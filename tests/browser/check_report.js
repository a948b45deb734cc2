// check_report.js REPORT.html SCREENSHOT.png: opens a report of `flce report` in headless
// Chromium (Debian's /usr/bin/chromium, driven by playwright-core) and fails (exit 1, one
// line per fault) when an image does not load, a local link points to a missing file, or the
// page logs an error; writes a full-page screenshot (SHOT_MAX_HEIGHT=N: only the top N pixels
// of the page, for a report too long to carry as one image).
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
  });
  const faults = [];
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  page.on('console', m => { if (m.type() === 'error') faults.push(`console error: ${m.text()}`); });
  page.on('pageerror', e => faults.push(`page error: ${e.message}`));
  page.on('requestfailed', r => faults.push(`failed to load ${r.url()}`));
  await page.goto(pathToFileURL(path.resolve(report)).href, { waitUntil: 'load' });
  const images = await page.evaluate(() => Array.from(document.images).map(i => ({ src: i.src, ok: i.complete && i.naturalWidth > 0 })));
  for (const i of images) if (!i.ok) faults.push(`image does not load: ${i.src}`);
  const links = await page.evaluate(() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href));
  for (const l of links) {
    if (!l.startsWith('file:')) continue;
    const f = fileURLToPath(l.split('#')[0]);
    if (!fs.existsSync(f)) faults.push(`broken link: ${l}`);
  }
  const maxh = parseInt(process.env.SHOT_MAX_HEIGHT || '0', 10);
  if (maxh > 0) {
    const h = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: 1000, height: Math.min(h, maxh) } });
  } else {
    await page.screenshot({ path: shot, fullPage: true });
  }
  await browser.close();
  for (const f of faults) console.log(`FAIL: ${f}`);
  console.log(`${images.length} images, ${links.length} links, ${faults.length} faults`);
  process.exit(faults.length ? 1 : 0);
})().catch(e => { console.log(`FAIL: ${e.message}`); process.exit(1); });
