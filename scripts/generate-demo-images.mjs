#!/usr/bin/env node
/**
 * Writes the demo catalogue's images (worker/catalog/demo/catalogue.ts) into public/demo/ as small flat SVG
 * illustrations. No dependencies, no network, deterministic: run `node scripts/generate-demo-images.mjs`.
 *
 * Files are named /demo/<kind>-<rrggbb>.svg: the illustration and its main colour. IMAGES below lists every file the
 * catalogue uses; when the catalogue gets a new kind/colour pair, add it here and run the script again.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const IMAGES = {
  backpack: ["1f3a5f", "2f5d46", "7fb3d5", "b5532c", "d4a72c"],
  bandana: ["1f3a5f", "a3b59a", "b5532c"],
  beanie: ["1f3a5f", "b5532c", "d4a72c"],
  blanket: ["3a3d42", "a3b59a", "c8922b"],
  book: ["6b4a33", "a3b59a"],
  boot: ["1c1c1e", "3a3d42", "6b4a33", "6b6b3a", "d4a72c"],
  bottle: ["1c1c1e", "2f5d46", "6b4a33", "7fb3d5"],
  candle: ["a87b4f"],
  cap: ["1f3a5f", "6b6b3a", "d8c3a0"],
  carabiner: ["6b6b3a", "e4775e"],
  card: ["2f5d46"],
  coffee: ["1f3a5f", "2f5d46", "6d2330", "7fb3d5", "b5532c", "d4a72c"],
  cushion: ["1f3a5f", "c46a4a", "d4a72c"],
  dripper: ["3a3d42", "f5f4f0"],
  duffel: ["1f3a5f", "6b4a33"],
  gift: ["6d2330"],
  gloves: ["3a3d42", "6b6b3a"],
  hammock: ["c46a4a", "d8c3a0"],
  hippack: ["1c1c1e", "a3b59a", "e4775e"],
  hoodie: ["1c1c1e", "1f3a5f", "2f5d46", "3a3d42", "6b4a33", "a3b59a", "a4a7ab", "a99bc9", "b5532c", "d4a72c", "e4775e"],
  lantern: ["6b6b3a"],
  longsleeve: ["1f3a5f", "6d2330", "a3b59a", "e9dfcb"],
  messenger: ["1c1c1e", "5b6b7a"],
  mug: ["1f3a5f", "2f5d46", "5b6b7a", "a3b59a", "e9dfcb", "f5f4f0"],
  pin: ["2f5d46"],
  scarf: ["5b6b7a", "6d2330"],
  shoe: ["1c1c1e", "1f3a5f", "5b6b7a", "6d2330", "a3b59a", "a4a7ab", "a87b4f", "d8c3a0", "e4775e", "f5f4f0"],
  socks: ["2f5d46", "3a3d42", "a4a7ab"],
  sparkle: ["7fb3d5"],
  sunglasses: ["1c1c1e", "5a3a22"],
  sweater: ["1f3a5f", "2f5d46", "5b6b7a", "6d2330", "e9dfcb"],
  tag: ["c46a4a"],
  tee: ["1c1c1e", "1f3a5f", "2f5d46", "3a3d42", "6b6b3a", "7fb3d5", "b5532c", "bdb6a8", "c46a4a", "d4a72c", "d8c3a0", "e4775e", "efe8d8", "f5f4f0"],
  tin: ["6b4a33", "c46a4a"],
  tote: ["6b4a33", "6b6b3a", "efe8d8"],
  towel: ["a3b59a", "b5532c", "bdb6a8"],
  wallet: ["1c1c1e", "a87b4f"],
  wraps: ["d4a72c"],
};

/* ---------------------------------------------------------------- colour helpers */

const rgb = (hex) => [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
const toHex = (c) => `#${c.map((v) => Math.round(v).toString(16).padStart(2, "0")).join("")}`;
/** Mix hex colour a towards b by t (0..1). */
const mix = (a, b, t) => toHex(rgb(a).map((v, i) => v + (rgb(b)[i] - v) * t));
const luminance = (hex) => {
  const [r, g, b] = rgb(hex).map((v) => v / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

const GOLD = "#e6c35c";
const CREAM = "#f3ead8";
const STEEL = "#c9ccd0";

/* ---------------------------------------------------------------- shapes (800×800), c: main, d: darker, l: lighter */

const shirt = "M300 170L355 150Q400 185 445 150L500 170L640 250L595 345L535 318V650H265V318L205 345L160 250Z";
const longShirt = "M300 170L355 150Q400 185 445 150L500 170L600 230L665 560L605 578L535 330V650H265V330L195 578L135 560L200 230Z";
const collar = (d) => `<path fill="none" stroke="${d}" stroke-width="16" d="M355 152Q400 195 445 152"/>`;
const sparkle = (fill, x, y, s) =>
  `<path fill="${fill}" transform="translate(${x} ${y}) scale(${s})" d="M0-220Q20-20 220 0Q20 20 0 220Q-20 20-220 0Q-20-20 0-220Z"/>`;

const SHAPES = {
  tee: (c, d) => `<path fill="${c}" d="${shirt}"/>${collar(d)}`,
  longsleeve: (c, d) => `<path fill="${c}" d="${longShirt}"/>${collar(d)}`,
  sweater: (c, d) =>
    `<path fill="${c}" d="${longShirt}"/><path fill="none" stroke="${d}" stroke-width="24" d="M355 154Q400 192 445 154"/>` +
    `<rect x="265" y="615" width="270" height="35" fill="${d}"/><path fill="none" stroke="${d}" stroke-width="24" d="M610 560L660 546M190 560L140 546"/>`,
  hoodie: (c, d) =>
    `<path fill="${c}" d="${longShirt}"/><path fill="${c}" d="M335 180Q325 95 400 90Q475 95 465 180Q400 225 335 180Z"/>` +
    `<path fill="${d}" d="M365 172Q368 125 400 120Q432 125 435 172Q400 192 365 172Z"/>` +
    `<path fill="${d}" opacity=".45" d="M320 480H480L510 590H290Z"/><rect x="265" y="615" width="270" height="35" fill="${d}"/>` +
    `<path stroke="#fff" stroke-opacity=".8" stroke-width="8" d="M385 195V275M415 195V275"/>`,
  shoe: (c, d) =>
    `<path fill="${c}" d="M170 520Q165 430 240 420Q300 410 340 380Q370 345 420 350L470 360Q520 420 600 450Q660 470 665 520Z"/>` +
    `<path fill="${d}" d="M170 520Q165 430 240 420L250 520Z"/><path fill="#f2efe8" d="M150 520H680Q690 520 688 540L684 565Q680 585 660 585H170Q150 585 150 565Z"/>` +
    `<path stroke="#fff" stroke-width="8" d="M405 372L440 392M430 388L465 408M455 404L490 424"/>`,
  boot: (c, d) =>
    `<path fill="${c}" d="M240 200H420Q430 320 450 420Q560 440 630 470Q670 490 668 540H220Q230 400 240 200Z"/>` +
    `<rect x="236" y="186" width="190" height="34" rx="12" fill="${d}"/><path fill="#2b2a28" d="M205 540H685V575Q685 595 665 595H225Q205 595 205 575Z"/>` +
    `<path stroke="${GOLD}" stroke-width="9" d="M400 250H440M404 295H444M410 340H450M418 385H458"/>`,
  backpack: (c, d) =>
    `<path fill="none" stroke="${d}" stroke-width="22" d="M335 215Q335 150 400 150Q465 150 465 215"/>` +
    `<rect x="240" y="200" width="320" height="450" rx="100" fill="${c}"/><rect x="290" y="430" width="220" height="170" rx="40" fill="${d}"/>` +
    `<path stroke="${d}" stroke-width="10" d="M300 310H500"/>`,
  tote: (c, d) =>
    `<path fill="none" stroke="${d}" stroke-width="22" d="M320 330Q320 170 400 170Q480 170 480 330"/>` +
    `<path fill="${c}" d="M220 320H580L555 660H245Z"/><path fill="none" stroke="${d}" stroke-width="6" stroke-dasharray="14 10" d="M235 350H565"/>`,
  messenger: (c, d, l) =>
    `<path fill="none" stroke="${d}" stroke-width="24" d="M220 420Q220 150 400 150Q580 150 580 420"/>` +
    `<rect x="190" y="330" width="420" height="320" rx="30" fill="${c}"/><rect x="200" y="320" width="400" height="40" rx="20" fill="${d}"/>` +
    `<path fill="${l}" d="M190 380H610V520Q610 545 585 545H215Q190 545 190 520Z"/><rect x="380" y="510" width="40" height="60" rx="6" fill="${STEEL}"/>`,
  hippack: (c, d) =>
    `<rect x="90" y="430" width="620" height="34" rx="17" fill="${d}"/><rect x="110" y="420" width="50" height="54" rx="8" fill="#2b2a28"/>` +
    `<rect x="240" y="350" width="320" height="200" rx="95" fill="${c}"/><path fill="none" stroke="${d}" stroke-width="10" d="M290 420Q400 380 510 420"/>`,
  duffel: (c, d) =>
    `<path fill="none" stroke="${d}" stroke-width="24" d="M300 360Q300 240 400 240Q500 240 500 360"/>` +
    `<rect x="130" y="340" width="540" height="280" rx="130" fill="${c}"/><rect x="180" y="370" width="60" height="220" rx="30" fill="${d}"/>` +
    `<rect x="560" y="370" width="60" height="220" rx="30" fill="${d}"/><path stroke="${d}" stroke-width="10" d="M260 362H540"/>`,
  mug: (c, d) =>
    `<path fill="none" stroke="${d}" stroke-width="48" d="M520 370Q620 370 620 460Q620 550 520 550"/>` +
    `<path fill="none" stroke="${c}" stroke-width="38" d="M520 370Q620 370 620 460Q620 550 520 550"/>` +
    `<path fill="${c}" d="M230 290H530V580Q530 640 470 640H290Q230 640 230 580Z"/><ellipse cx="380" cy="290" rx="150" ry="26" fill="${d}"/>` +
    `<g fill="${d}" opacity=".5"><circle cx="290" cy="380" r="6"/><circle cx="430" cy="420" r="5"/><circle cx="340" cy="520" r="6"/><circle cx="480" cy="560" r="5"/></g>`,
  bottle: (c, d) =>
    `<circle cx="400" cy="118" r="28" fill="none" stroke="${d}" stroke-width="12"/><rect x="345" y="130" width="110" height="70" rx="16" fill="${d}"/>` +
    `<rect x="355" y="195" width="90" height="40" fill="${STEEL}"/><rect x="300" y="225" width="200" height="430" rx="60" fill="${c}"/>` +
    `<rect x="330" y="270" width="22" height="330" rx="11" fill="#fff" opacity=".25"/>`,
  candle: (c) =>
    `<rect x="270" y="300" width="260" height="330" rx="36" fill="${c}"/><ellipse cx="400" cy="330" rx="110" ry="22" fill="${CREAM}"/>` +
    `<path stroke="#333" stroke-width="6" d="M400 330V285"/><path fill="#f2a541" d="M400 200Q432 250 415 275Q400 290 385 275Q368 250 400 200Z"/>` +
    `<rect x="300" y="430" width="200" height="110" rx="8" fill="${CREAM}"/>`,
  blanket: (c, d) =>
    [470, 370, 280]
      .map((y, i) => {
        const x = 190 + i * 20;
        const w = 420 - i * 40;
        return `<rect x="${x}" y="${y}" width="${w}" height="${120 - i * 10}" rx="30" fill="${c}"/><path stroke="${d}" stroke-width="12" d="M${x + 4} ${y + 40}H${x + w - 4}"/>`;
      })
      .join(""),
  towel: (c, d, l) =>
    `<rect x="170" y="180" width="460" height="16" rx="8" fill="#8b8f94"/><rect x="320" y="188" width="250" height="430" fill="${l}"/>` +
    `<rect x="240" y="188" width="260" height="460" fill="${c}"/><rect x="240" y="540" width="260" height="20" fill="${d}"/><rect x="240" y="575" width="260" height="20" fill="${d}"/>`,
  cushion: (c, d) =>
    `<path fill="${c}" d="M210 230Q400 260 590 230Q560 420 590 610Q400 580 210 610Q240 420 210 230Z"/><circle cx="400" cy="420" r="16" fill="${d}"/>` +
    `<path fill="none" stroke="${d}" stroke-width="6" opacity=".5" d="M260 280Q400 300 540 280M260 560Q400 540 540 560"/>`,
  dripper: (c, d) =>
    `<path fill="#e8eef2" d="M300 470H500L520 640H280Z"/><path fill="#6b4a33" d="M292 560H508L520 640H280Z"/>` +
    `<path fill="none" stroke="${c}" stroke-width="30" d="M540 290Q610 300 580 370"/><path fill="${c}" d="M250 260H550L470 440H330Z"/>` +
    `<rect x="290" y="430" width="220" height="26" rx="10" fill="${c}"/><path stroke="${d}" stroke-width="6" opacity=".5" d="M350 290L380 420M450 290L420 420"/>`,
  lantern: (c, d) =>
    `<circle cx="400" cy="385" r="190" fill="#fff3c4" opacity=".5"/><path fill="none" stroke="${d}" stroke-width="14" d="M330 200Q330 130 400 130Q470 130 470 200"/>` +
    `<path fill="${c}" d="M300 230Q400 170 500 230V260H300Z"/><rect x="320" y="260" width="160" height="250" rx="30" fill="#fbe7a1"/>` +
    `<path stroke="${c}" stroke-width="14" d="M340 260V510M460 260V510"/><rect x="290" y="510" width="220" height="100" rx="24" fill="${c}"/>`,
  hammock: (c, d) =>
    `<path fill="none" stroke="#8a6b4a" stroke-width="8" d="M110 250L200 390M110 250L200 450M690 250L600 390M690 250L600 450"/>` +
    `<path fill="${c}" d="M200 390Q400 640 600 390V450Q400 700 200 450Z"/><rect x="192" y="380" width="16" height="80" rx="6" fill="#8a6b4a"/>` +
    `<rect x="592" y="380" width="16" height="80" rx="6" fill="#8a6b4a"/><path fill="none" stroke="${d}" stroke-width="6" d="M260 470Q400 620 540 470"/>`,
  wraps: (c, _d, l) =>
    `<rect x="250" y="230" width="300" height="300" rx="20" fill="${l}" transform="rotate(10 400 380)"/>` +
    `<rect x="220" y="300" width="300" height="300" rx="20" fill="${c}" transform="rotate(-12 370 450)"/>` +
    `<g fill="#fff" opacity=".6"><circle cx="300" cy="400" r="14"/><circle cx="380" cy="460" r="14"/><circle cx="450" cy="390" r="14"/><circle cx="330" cy="520" r="14"/><circle cx="460" cy="530" r="14"/></g>`,
  coffee: (c) =>
    `<path fill="#c9a66b" d="M270 200H530L560 660H240Z"/><rect x="262" y="180" width="276" height="46" rx="6" fill="#b38d52"/>` +
    `<circle cx="400" cy="275" r="14" fill="#b38d52"/><rect x="300" y="330" width="200" height="220" rx="14" fill="${c}"/>` +
    `<ellipse cx="400" cy="440" rx="42" ry="60" fill="#fff" opacity=".85" transform="rotate(20 400 440)"/><path fill="none" stroke="${c}" stroke-width="8" d="M388 388Q420 440 412 494"/>`,
  tin: (c, d) =>
    `<rect x="280" y="260" width="240" height="380" rx="20" fill="${c}"/><rect x="270" y="220" width="260" height="70" rx="14" fill="${d}"/>` +
    `<rect x="280" y="380" width="240" height="140" fill="${CREAM}"/><ellipse cx="400" cy="450" rx="30" ry="48" fill="${c}" transform="rotate(30 400 450)"/>`,
  beanie: (c, d) =>
    `<path fill="${c}" d="M220 520Q220 220 400 220Q580 220 580 520Z"/>` +
    `<path stroke="${d}" stroke-width="8" opacity=".45" d="M290 290V500M345 250V500M400 235V500M455 250V500M510 290V500"/>` +
    `<rect x="200" y="480" width="400" height="120" rx="30" fill="${d}"/>`,
  cap: (c, d) =>
    `<path fill="${c}" d="M200 470Q200 260 400 260Q600 260 600 470Z"/><path fill="${d}" d="M420 460Q620 430 700 500Q620 540 430 520Z"/>` +
    `<path fill="none" stroke="${d}" stroke-width="6" d="M400 262V465M300 290Q330 380 320 468"/><circle cx="400" cy="262" r="16" fill="${d}"/>`,
  socks: (c, d, l) => {
    const sock = (fill, dark, t) =>
      `<g transform="${t}"><path fill="${fill}" d="M330 170H470V460Q470 500 510 520L610 565Q660 590 640 635Q620 675 570 660L370 600Q330 585 330 540Z"/>` +
      `<rect x="330" y="170" width="140" height="60" fill="${dark}"/><path fill="${dark}" d="M575 545L610 565Q660 590 640 635Q620 675 570 660L555 655Q590 600 575 545Z"/></g>`;
    return sock(l, d, "translate(-90 20)") + sock(c, d, "translate(20 0)");
  },
  scarf: (c, d) =>
    `<rect x="400" y="240" width="90" height="360" rx="10" fill="${d}"/><rect x="290" y="220" width="90" height="400" rx="10" fill="${c}"/>` +
    `<path fill="${c}" d="M300 160Q400 220 500 160L520 220Q400 290 280 220Z"/>` +
    `<path stroke="${c}" stroke-width="6" d="M300 620V650M320 620V650M340 620V650M360 620V650"/><path stroke="${d}" stroke-width="6" d="M410 600V630M430 600V630M450 600V630M470 600V630"/>`,
  wallet: (c, d) =>
    `<rect x="250" y="240" width="240" height="90" rx="10" fill="${GOLD}"/><rect x="200" y="280" width="400" height="260" rx="30" fill="${c}"/>` +
    `<path stroke="${d}" stroke-width="10" d="M230 340H570M230 390H570"/>` +
    `<rect x="218" y="298" width="364" height="224" rx="20" fill="none" stroke="#fff" stroke-opacity=".5" stroke-width="4" stroke-dasharray="12 10"/>`,
  gloves: (c, d) =>
    `<g fill="${c}"><rect x="300" y="230" width="46" height="190" rx="23"/><rect x="352" y="195" width="46" height="220" rx="23"/>` +
    `<rect x="404" y="205" width="46" height="210" rx="23"/><rect x="456" y="245" width="44" height="170" rx="22"/>` +
    `<rect x="228" y="380" width="46" height="150" rx="23" transform="rotate(-30 251 455)"/><rect x="300" y="350" width="200" height="230" rx="50"/></g>` +
    `<g fill="${STEEL}"><rect x="305" y="235" width="36" height="24" rx="12"/><rect x="357" y="200" width="36" height="24" rx="12"/><rect x="409" y="210" width="36" height="24" rx="12"/></g>` +
    `<rect x="300" y="560" width="200" height="90" rx="16" fill="${d}"/>`,
  bandana: (c) =>
    `<path fill="${c}" d="M170 250H630L400 640Z"/>` +
    `<path fill="none" stroke="#fff" stroke-opacity=".75" stroke-width="10" stroke-dasharray="2 18" stroke-linecap="round" d="M230 280H570L400 575Z"/>` +
    `<path fill="#fff" opacity=".7" d="M400 300Q430 360 400 440Q370 360 400 300Z"/>`,
  sunglasses: (c) =>
    `<path fill="none" stroke="${c}" stroke-width="16" d="M200 400L120 375M600 400L680 375M380 400Q400 375 420 400"/>` +
    `<circle cx="290" cy="420" r="95" fill="${c}"/><circle cx="510" cy="420" r="95" fill="${c}"/>` +
    `<circle cx="290" cy="420" r="72" fill="#2a3440"/><circle cx="510" cy="420" r="72" fill="#2a3440"/>` +
    `<path fill="none" stroke="#fff" stroke-opacity=".4" stroke-width="10" d="M250 390Q270 370 295 368M470 390Q490 370 515 368"/>`,
  carabiner: (c) =>
    `<path fill="none" stroke="${c}" stroke-width="34" d="M330 200H440Q540 200 540 320V500Q540 620 430 620H360Q260 620 260 520V280Q260 200 330 200Z"/>` +
    `<path stroke="${STEEL}" stroke-width="18" stroke-linecap="round" d="M262 300L300 470"/>` +
    `<circle cx="450" cy="660" r="40" fill="none" stroke="${STEEL}" stroke-width="10"/><path fill="${GOLD}" d="M480 680L560 720L552 736L530 726L524 740L510 733L516 719L472 698Z"/>`,
  pin: (c, d) =>
    `<circle cx="270" cy="330" r="110" fill="${c}"/><path fill="#fff" d="M200 380L255 290L285 335L305 305L345 380Z"/>` +
    `<circle cx="530" cy="330" r="110" fill="${d}"/><path fill="none" stroke="#fff" stroke-width="10" d="M530 410V250M530 290L495 270M530 290L565 270M530 330L490 310M530 330L570 310M530 370L495 350M530 370L565 350"/>` +
    `<circle cx="400" cy="540" r="110" fill="${GOLD}"/><path fill="${c}" d="M400 450Q450 520 425 575Q400 600 375 575Q350 520 400 450Z"/>`,
  card: (c, d) =>
    `<rect x="150" y="250" width="500" height="310" rx="30" fill="${c}"/><rect x="470" y="250" width="40" height="310" fill="${GOLD}"/>` +
    `<rect x="150" y="380" width="500" height="36" fill="${GOLD}"/><path fill="${GOLD}" d="M490 398Q430 330 425 390Q425 430 490 400Q555 430 555 390Q550 330 490 398Z"/>` +
    `<path stroke="${d}" stroke-width="10" d="M200 480H380M200 510H320"/>`,
  book: (c, d) =>
    `<rect x="270" y="195" width="320" height="425" rx="12" fill="${CREAM}"/><rect x="250" y="180" width="320" height="440" rx="14" fill="${c}"/>` +
    `<rect x="250" y="180" width="40" height="440" rx="10" fill="${d}"/><rect x="330" y="260" width="180" height="80" rx="8" fill="${CREAM}"/>` +
    `<path fill="${CREAM}" d="M330 520L400 420L440 470L470 440L520 520Z"/>`,
  gift: (c, d) =>
    `<rect x="230" y="360" width="340" height="270" rx="10" fill="${c}"/><rect x="210" y="300" width="380" height="80" rx="10" fill="${d}"/>` +
    `<rect x="380" y="300" width="40" height="330" fill="${GOLD}"/><path fill="${GOLD}" d="M400 300Q320 200 320 270Q320 320 400 302Q480 320 480 270Q480 200 400 300Z"/>`,
  tag: (c, _d, _l, bg) =>
    `<g transform="rotate(-15 400 400)"><path fill="none" stroke="#8b8f94" stroke-width="6" d="M560 400Q650 300 620 200"/>` +
    `<path fill="${c}" d="M260 250H500L620 400L500 550H260Q230 550 230 520V280Q230 250 260 250Z"/><circle cx="540" cy="400" r="22" fill="${bg}"/>` +
    `<g fill="#fff"><circle cx="320" cy="345" r="24"/><circle cx="420" cy="455" r="24"/><path d="M425 320L447 336L317 480L295 464Z"/></g></g>`,
  sparkle: (c, d) => sparkle(c, 400, 400, 1) + sparkle(d, 620, 200, 0.35) + sparkle(d, 210, 610, 0.28),
};

/* ---------------------------------------------------------------- writing */

function svg(kind, hex) {
  const c = `#${hex}`;
  const light = luminance(hex) > 0.7;
  const bg = light ? "#ddd7cc" : mix(hex, "f6f2ea", 0.84);
  const d = mix(hex, "000000", light ? 0.3 : 0.28);
  const l = mix(hex, "ffffff", 0.35);
  // The group below draws a faint outline (stroke-opacity .16); parts with a stroke of their own are drawn opaque.
  const body = SHAPES[kind](c, d, l, bg).replace(/ stroke="([^"]+)"(?![^>]*stroke-opacity)/g, ' stroke="$1" stroke-opacity="1"');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 800" width="800" height="800">` +
    `<rect width="800" height="800" fill="${bg}"/><ellipse cx="400" cy="690" rx="240" ry="26" fill="#000" opacity=".07"/>` +
    `<g stroke="#000" stroke-opacity=".16" stroke-width="5" stroke-linejoin="round">${body}</g></svg>\n`
  );
}

const outDir = join(dirname(fileURLToPath(import.meta.url)), "..", "public", "demo");
mkdirSync(outDir, { recursive: true });
let count = 0;
let largest = 0;
for (const [kind, colours] of Object.entries(IMAGES)) {
  if (!SHAPES[kind]) throw new Error(`no shape for ${kind}`);
  for (const hex of colours) {
    const text = svg(kind, hex);
    largest = Math.max(largest, text.length);
    writeFileSync(join(outDir, `${kind}-${hex}.svg`), text);
    count++;
  }
}
console.log(`wrote ${count} images to public/demo (largest ${largest} bytes)`);
