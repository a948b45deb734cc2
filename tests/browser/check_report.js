// check_report.js REPORT.html SCREENSHOT.png (or --batch JOBS, many pages in one browser, below): opens a page of `flce report` in headless
// Chromium (Debian's /usr/bin/chromium, driven by playwright-core) at 1280 x 800 and fails
// (exit 1, one line per fault) when an image does not load, a local link points to a missing
// file or to an anchor its page does not have, a per-round figure's legend has more than 12
// entries, the page logs an error, its text holds a literal ** (Markdown bold not made HTML), or a
// figure has no axis label (its gnuplot script NAME.gp beside NAME.svg sets no x or no y label, or
// the SVG does not draw one it sets) or holds a bitmap (a heat map the browser stretches into a
// blur); with FIRST_SCREEN_VERDICT=1, also when the first screen (the top 800 pixels) holds no
// verdict figure (the claims' forest plot); with FIRST_SCREEN_CLIENTS=1 (a one-seed report), when
// the first screen does not hold the clients section's heading, or the claims are not folded (a
// closed <details> saying they need two seeds); with FIRST_SCREEN_ACCURACY=1 (report.html), when
// the first screen does not hold the accuracy table (table.glance: method, final accuracy and
// macro-F1, their means over the window) whole. Every figure, besides (issue 81): a panel of two
// series or more without a legend (gnuplot's SVG draws a key entry as a <text> holding the plot's
// <title> inside the plot's <g id="gnuplot_plot_N">; a multiplot's panels suffix N with a, b, ...),
// a key its script places inside the plot area (gnuplot's default: inside, top right), where it
// can cover data, or any text drawn below 9 px (its font size in the SVG times the figure's scale
// on the page, every <details> opened). Writes a screenshot: the full page, or its top
// SHOT_MAX_HEIGHT pixels (SHOT_MAX_HEIGHT=800: the first screen).
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');
const { fileURLToPath, pathToFileURL } = require('url');

// The checks of one page in a context of its own; env: the settings above. Returns the lines to
// print and the exit status (1: faults).
async function checkPage(browser, report, shot, env) {
  const faults = [];
  const W = 1280, H = 800;
  const context = await browser.newContext({ viewport: { width: W, height: H } });
  try { return await checkContext(context, report, shot, env, faults, W, H); } finally { await context.close(); }
}

async function checkContext(context, report, shot, env, faults, W, H) {
  const page = await context.newPage();
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
  // per-round figures (the configurations', and each run's): at most 12 legend entries in a panel
  // (gnuplot's SVG gives each titled plot a <title>; untitled ones are named gnuplot_plot_N; a
  // multiplot's panels suffix N with a, b, ...: a <title> counts in the panel of the plot before it)
  for (const i of images) {
    const m = i.src.match(/\/((conf\d+_(rounds|ablations))|accuracy|macro_f1|kl|shapley_distance)\.svg$/);
    if (!m || !i.ok || !i.src.startsWith('file:') || !fs.existsSync(fileURLToPath(i.src))) continue;
    const svg = fs.readFileSync(fileURLToPath(i.src), 'utf8'), per = {};
    let panel = '';
    for (const t of svg.matchAll(/<g id="gnuplot_plot_\d+([a-z]*)"|<title>([^<]*)<\/title>/g)) {
      if (t[2] === undefined) panel = t[1];
      else if (!t[2].startsWith('gnuplot_plot_')) per[panel] = (per[panel] || 0) + 1;
    }
    const n = Math.max(0, ...Object.values(per));
    if (n > 12) faults.push(`figure ${m[1]}.svg: ${n} legend entries (at most 12)`);
  }
  // no Markdown left in the page's text (closed <details> included): report.html once showed
  // "A claim **holds** when ..." with its asterisks
  const text = await page.evaluate(() => document.body.textContent);
  const star = text.indexOf('**');
  if (star >= 0) faults.push(`literal ** in the page text: "${text.slice(Math.max(0, star - 30), star + 30).replace(/\s+/g, ' ')}"`);
  // every figure: an x and a y label set by its script and drawn in its SVG, and no bitmap in it
  const decode = t => t.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&apos;/g, "'")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').trim();
  const seen = new Set(), svgs = []; // svgs: the figures whose text sizes are read below
  let figures = 0;
  for (const i of images) {
    if (!i.src.startsWith('file:') || !i.src.endsWith('.svg')) continue;
    const svgPath = fileURLToPath(i.src), name = path.basename(svgPath);
    if (seen.has(svgPath) || !fs.existsSync(svgPath)) continue;
    seen.add(svgPath), figures++;
    const gpPath = svgPath.replace(/\.svg$/, '.gp');
    if (!fs.existsSync(gpPath)) { faults.push(`figure ${name}: no gnuplot script ${path.basename(gpPath)} beside it`); continue; }
    const gp = fs.readFileSync(gpPath, 'utf8'), svg = fs.readFileSync(svgPath, 'utf8');
    const drawn = new Set(Array.from(svg.matchAll(/<text[^>]*>([\s\S]*?)<\/text>/g)).map(m => decode(m[1])));
    for (const axis of ['x', 'y']) {
      const labels = Array.from(gp.matchAll(new RegExp(`^\\s*set ${axis}label '([^']*)'`, 'gm'))).map(m => m[1]).filter(l => l.trim() !== '');
      if (!labels.length) { faults.push(`figure ${name}: no ${axis} axis label (${path.basename(gpPath)} sets none)`); continue; }
      // gnuplot's enhanced text: b_c is b with c below, drawn as "bc"
      for (const l of new Set(labels)) if (!drawn.has(l.replace(/[_^{}]/g, '').trim())) faults.push(`figure ${name}: its ${axis} label '${l}' is not drawn`);
    }
    if (/<image[\s>]/.test(svg)) faults.push(`figure ${name}: holds a bitmap (stretched by the browser: a blurred heat map); draw its cells (with image pixels)`);
    // a legend in every panel of two series or more: some plot's <title> drawn as a <text> in its group
    const panels = {};
    const starts = Array.from(svg.matchAll(/<g id="gnuplot_plot_(\d+)([a-z]*)"\s*>\s*<title>([^<]*)<\/title>/g));
    starts.forEach((m, k) => {
      const body = svg.slice(m.index + m[0].length, k + 1 < starts.length ? starts[k + 1].index : svg.length);
      const title = decode(m[3]), texts = Array.from(body.matchAll(/<text[^>]*>([\s\S]*?)<\/text>/g)).map(t => decode(t[1]));
      const p = panels[m[2]] || (panels[m[2]] = { series: 0, keyed: 0 });
      p.series++;
      if (!/^gnuplot_plot_/.test(title) && title !== '' && texts.includes(title)) p.keyed++;
    });
    for (const [suffix, p] of Object.entries(panels))
      if (p.series >= 2 && !p.keyed) faults.push(`figure ${name}: ${suffix ? `panel ${suffix}: ` : ''}${p.series} series and no legend`);
    // the key never inside the plot area, where it covers data: every 'set key' that places it
    // says outside (or below, above, a margin), and a figure with a legend places it so
    const keyed = Object.values(panels).some(p => p.keyed > 0);
    let placed = false;
    for (const m of gp.matchAll(/^\s*set key\b(.*)$/gm)) {
      const w = m[1].replace(/(font|title|spacing|width|height|samplen|maxcols|maxrows)\s+('[^']*'|"[^"]*"|\S+)/g, ' ');
      if (/\b(off|default)\b/.test(w)) { placed = false; continue; }
      if (/\b(outside|below|above|[lrtb]margin)\b/.test(w)) placed = true;
      else if (/\b(inside|left|right|top|bottom|center|at)\b/.test(w))
        faults.push(`figure ${name}: its key is placed inside the plot area (${m[0].trim()} in ${path.basename(gpPath)}): it may cover data`);
    }
    if (keyed && !placed) faults.push(`figure ${name}: its legend is inside the plot area (${path.basename(gpPath)} never places the key outside it)`);
    svgs.push({ name, file: svgPath });
  }
  if (env.FIRST_SCREEN_CLIENTS === '1') {
    const c = await page.evaluate(() => {
      const h = Array.from(document.querySelectorAll('h2')).find(e => e.textContent.startsWith('Clients: contributions beside data shares'));
      const f = document.querySelector('img[src^="forest."]'), d = f ? f.closest('details') : null;
      return { bottom: h ? h.getBoundingClientRect().bottom + window.scrollY : -1, folded: !!d && !d.open,
               summary: d && d.querySelector('summary') ? d.querySelector('summary').textContent : '' };
    });
    if (c.bottom < 0) faults.push('the first screen holds no clients section: the page has none (h2 Clients: contributions beside data shares)');
    else if (c.bottom > H) faults.push(`the first screen holds no clients section: its heading ends at ${Math.round(c.bottom)} px, below the first ${H}`);
    if (!c.folded || !/at least two seeds/.test(c.summary)) faults.push('the claims are not folded under a summary saying they need at least two seeds');
  }
  if (env.FIRST_SCREEN_ACCURACY === '1') {
    const a = await page.evaluate(() => {
      const t = document.querySelector('table.glance');
      if (!t) return null;
      const r = t.getBoundingClientRect(), heads = Array.from(t.querySelectorAll('th')).map(h => h.textContent).join(' | ');
      return { bottom: r.bottom + window.scrollY, rows: t.querySelectorAll('tr').length - 1, heads };
    });
    if (!a) faults.push('the first screen holds no accuracy table: the page has none (table.glance)');
    else if (a.bottom > H) faults.push(`the first screen holds no accuracy table: it ends at ${Math.round(a.bottom)} px, below the first ${H}`);
    else if (a.rows < 1 || !/final accuracy/.test(a.heads) || !/macro-F1/.test(a.heads))
      faults.push(`the accuracy table has ${a.rows} rows and the columns '${a.heads}' (method, final accuracy, macro-F1 expected)`);
  }
  if (env.FIRST_SCREEN_VERDICT === '1') {
    const top = await page.evaluate(() => {
      const v = document.querySelector('img[src^="forest."]');
      return v ? v.getBoundingClientRect().top + window.scrollY : -1;
    });
    if (top < 0) faults.push('the first screen holds no verdict figure: the page has none (img forest.svg)');
    else if (top >= H - 40) faults.push(`the first screen holds no verdict figure: the forest plot begins at ${Math.round(top)} px, below the first ${H}`);
  }
  const maxh = parseInt(env.SHOT_MAX_HEIGHT || '0', 10);
  if (maxh > 0) {
    const h = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: W, height: Math.min(h, maxh) } });
  } else {
    await page.screenshot({ path: shot, fullPage: true });
  }
  // no text in a figure below 9 px as the page shows it (every <details> opened): each text's
  // font size in its SVG, as Chromium computes it, times the figure's scale on the page
  await page.evaluate(() => document.querySelectorAll('details').forEach(d => { d.open = true; }));
  const shown = await page.evaluate(() => Array.from(document.images).map(i => ({ src: i.src, w: i.getBoundingClientRect().width })));
  const svgPage = await context.newPage();
  for (const f of svgs) {
    const url = pathToFileURL(f.file).href;
    const widths = shown.filter(s => s.src === url && s.w > 0).map(s => s.w);
    await svgPage.goto(url, { waitUntil: 'load', timeout: 0 });
    const t = await svgPage.evaluate(() => {
      const svg = document.documentElement, vb = svg.viewBox && svg.viewBox.baseVal;
      const natural = vb && vb.width ? vb.width : parseFloat(svg.getAttribute('width'));
      let min = Infinity, text = '';
      const walk = document.createTreeWalker(svg, NodeFilter.SHOW_TEXT);
      for (let n; (n = walk.nextNode());) {
        if (!n.textContent.trim() || !n.parentElement || n.parentElement.closest('title, desc, script, style')) continue;
        const px = parseFloat(getComputedStyle(n.parentElement).fontSize);
        if (px < min) min = px, text = n.textContent.trim();
      }
      return { natural, min, text };
    });
    if (!isFinite(t.min)) continue;
    const scale = widths.length && t.natural > 0 ? Math.min(...widths) / t.natural : 1, px = t.min * scale;
    if (px < 9 - 1e-6) faults.push(`figure ${f.name}: text '${t.text.slice(0, 40)}' drawn at ${px.toFixed(1)} px (at least 9)`);
  }
  const lines = faults.map(f => `FAIL: ${f}`);
  lines.push(`${images.length} images (${figures} figures with their axis labels checked), ${links.length} links, ${faults.length} faults`);
  return { lines, code: faults.length ? 1 : 0 };
}

(async () => {
  const args = process.argv.slice(2), batch = args[0] === '--batch';
  if (args.length !== 2 || (batch && !args[1])) {
    console.error('usage: node check_report.js REPORT.html SCREENSHOT.png | --batch JOBS');
    process.exit(2);
  }
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
    timeout: 0, // no time limit of its own: a slow or loaded machine's start is not a failure (ctest's TIMEOUT guards a hang)
  });
  if (!batch) {
    let r;
    try { r = await checkPage(browser, args[0], args[1], process.env); } catch (e) { r = { lines: [`FAIL: ${e.message}`], code: 1 }; }
    await browser.close();
    for (const l of r.lines) console.log(l);
    process.exit(r.code);
  }
  // --batch JOBS: one browser for many pages (a start of Chromium costs seconds). Each line of
  // JOBS: SETTINGS<TAB>REPORT<TAB>SCREENSHOT<TAB>LOG, SETTINGS the settings above as NAME=VALUE
  // joined by commas, or -; each page's lines go to LOG, its exit status to LOG.rc
  for (const line of fs.readFileSync(args[1], 'utf8').split('\n').filter(l => l.trim() !== '')) {
    const [settings, report, shot, log] = line.split('\t');
    const env = Object.assign({}, process.env);
    const kvs = settings === '-' ? [] : settings.split(',');
    if (!report || !shot || !log || kvs.some(kv => kv.indexOf('=') < 1)) {
      console.error(`check_report.js: ${args[1]}: not SETTINGS<TAB>REPORT<TAB>SCREENSHOT<TAB>LOG: ${line}`);
      process.exit(2);
    }
    for (const kv of kvs) env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
    let r;
    try { r = await checkPage(browser, report, shot, env); } catch (e) { r = { lines: [`FAIL: ${e.message}`], code: 1 }; }
    fs.writeFileSync(log, r.lines.join('\n') + '\n');
    fs.writeFileSync(log + '.rc', `${r.code}\n`);
  }
  await browser.close();
  process.exit(0);
})().catch(e => { console.log(`FAIL: ${e.message}`); process.exit(1); });
