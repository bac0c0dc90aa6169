/**
 * Demo catalogue: "Fernhill Supply", a made-up small shop for outdoor & everyday apparel, home goods and coffee.
 * A fresh store is seeded with it so there is something to browse. Every entry passes productInputSchema /
 * collectionInputSchema (products carry `collections`, a list of collection slugs, which the schema drops).
 *
 * Images are flat SVG illustrations in public/demo/, written by scripts/generate-demo-images.mjs. Their names
 * encode the illustration and its colour: /demo/<kind>-<rrggbb>.svg (e.g. /demo/tee-1f3a5f.svg); the script keeps
 * its own list of them, so add new kind/colour pairs there too.
 */
import type { CollectionInputRaw, ProductInputRaw, RichNode } from "../schemas";

export interface DemoCollection extends CollectionInputRaw {
  slug: string;
}

export interface DemoProduct extends ProductInputRaw {
  slug: string;
  /** Slugs of the collections the product belongs to. */
  collections: string[];
}

type Media = NonNullable<ProductInputRaw["media"]>[number];
type Option = NonNullable<ProductInputRaw["productOptions"]>[number];
type Variant = NonNullable<ProductInputRaw["variants"]>[number];
type Section = NonNullable<ProductInputRaw["additionalInfoSections"]>[number];

/* ---------------------------------------------------------------- colours and images */

/** A named colour: [name shown to shoppers, hex code]. */
type Colour = readonly [name: string, hex: string];

const C = {
  navy: ["Navy", "#1F3A5F"],
  black: ["Black", "#1C1C1E"],
  white: ["White", "#F5F4F0"],
  heather: ["Heather Grey", "#A4A7AB"],
  charcoal: ["Charcoal", "#3A3D42"],
  forest: ["Forest", "#2F5D46"],
  olive: ["Olive", "#6B6B3A"],
  sage: ["Sage", "#A3B59A"],
  sand: ["Sand", "#D8C3A0"],
  oatmeal: ["Oatmeal", "#E9DFCB"],
  natural: ["Natural", "#EFE8D8"],
  stone: ["Stone", "#BDB6A8"],
  rust: ["Rust", "#B5532C"],
  terracotta: ["Terracotta", "#C46A4A"],
  burgundy: ["Burgundy", "#6D2330"],
  mustard: ["Mustard", "#D4A72C"],
  ochre: ["Ochre", "#C8922B"],
  coral: ["Coral", "#E4775E"],
  sky: ["Sky Blue", "#7FB3D5"],
  slate: ["Slate", "#5B6B7A"],
  lavender: ["Lavender", "#A99BC9"],
  brown: ["Chestnut", "#6B4A33"],
  tan: ["Tan", "#A87B4F"],
  tortoise: ["Tortoise", "#5A3A22"],
} as const satisfies Record<string, Colour>;

const imageUrl = (kind: string, colour: Colour) => `/demo/${kind}-${colour[1].slice(1).toLowerCase()}.svg`;

const image = (kind: string, colour: Colour, altText: string, choice?: string): Media => ({
  url: imageUrl(kind, colour),
  mediaType: "image",
  altText,
  width: 800,
  height: 800,
  ...(choice ? { choice: { option: "Color", choice } } : {}),
});

/* ---------------------------------------------------------------- rich text (Ricos nodes) */

type Text = string | { bold: string } | { link: string; url: string };

const text = (t: Text): RichNode => {
  if (typeof t === "string") return { type: "TEXT", textData: { text: t, decorations: [] } };
  if ("bold" in t) return { type: "TEXT", textData: { text: t.bold, decorations: [{ type: "BOLD" }] } };
  return {
    type: "TEXT",
    textData: { text: t.link, decorations: [{ type: "LINK", linkData: { link: { url: t.url, target: "BLANK" } } }] },
  };
};
const para = (...parts: Text[]): RichNode => ({ type: "PARAGRAPH", nodes: parts.map(text), paragraphData: {} });
const heading = (t: string): RichNode => ({ type: "HEADING", headingData: { level: 3 }, nodes: [text(t)] });
const bullets = (items: Text[][]): RichNode => ({
  type: "BULLETED_LIST",
  bulletedListData: { indentation: 0 },
  nodes: items.map((parts) => ({ type: "LIST_ITEM", nodes: [para(...parts)] })),
});

const CARE_GUIDE = { link: "our care guide", url: "https://example.com/care" };

/* ---------------------------------------------------------------- info sections, prices, SEO */

const SHIPPING: Section = {
  title: "Shipping & returns",
  description: "Free shipping on orders over $75, otherwise $5.95. Unworn and unused items can be returned within 30 days.",
};
const DIGITAL_DELIVERY: Section = {
  title: "Delivery",
  description: "A download link is emailed right after checkout and stays valid for 30 days. Digital items are not refundable once downloaded.",
};

const percent = (value: number) => ({ type: "PERCENT" as const, value });
const amountOff = (value: number) => ({ type: "AMOUNT" as const, value });
const grams = (total: number) => ({
  totalQuantity: total,
  totalMeasurementUnit: "G" as const,
  baseQuantity: 100,
  baseMeasurementUnit: "G" as const,
});
const millilitres = (total: number) => ({
  totalQuantity: total,
  totalMeasurementUnit: "ML" as const,
  baseQuantity: 100,
  baseMeasurementUnit: "ML" as const,
});

const seo = (title: string, description: string) => ({
  tags: [
    { type: "title", children: title },
    { type: "meta", props: { name: "description", content: description } },
  ],
  settings: {},
});

const round2 = (n: number) => Math.round(n * 100) / 100;

/* ---------------------------------------------------------------- the product builder */

interface Spec {
  name: string;
  slug: string;
  sku: string;
  /** Illustration of the product, see scripts/generate-demo-images.mjs. */
  kind: string;
  description: string;
  price: number;
  cost?: number;
  weight?: number;
  brand?: string;
  ribbon?: string;
  collections?: string[];
  /** Colour swatches (a "Color" option); every colour gets its own image. */
  colours?: Colour[];
  /** The illustration's colour when there is no colour option. */
  colour?: Colour;
  /** Drop-down options, e.g. {Size: ["S", "M", "L"]}. */
  options?: Record<string, string[]>;
  /** Extra price of some choices, e.g. {XL: 2}; variants with them get their own price. */
  extra?: Record<string, number>;
  /** Tracked stock: the default quantity of each variant. Omitted: not tracked, always in stock. */
  quantity?: number;
  /** Stock of some variants: [partial choices, quantity], e.g. [{Color: "Rust", Size: "S"}, 0] sells that one out. */
  stockOf?: [choices: Record<string, string>, quantity: number][];
  discount?: ProductInputRaw["discount"];
  pricePerUnit?: ProductInputRaw["pricePerUnitData"];
  materials?: string;
  care?: string;
  sections?: Section[];
  /** Bullet points ([bold lead, rest]) that make up a rich description together with the plain one. */
  highlights?: [string, string][];
  seo?: [title: string, description: string];
  digital?: boolean;
  /** More images after the main ones. */
  moreMedia?: Media[];
}

/** Every combination of choices, e.g. [{Color: "Navy", Size: "S"}, …]. */
function combinations(options: [string, string[]][]): Record<string, string>[] {
  return options.reduce<Record<string, string>[]>(
    (acc, [name, choices]) => acc.flatMap((combo) => choices.map((choice) => ({ ...combo, [name]: choice }))),
    [{}],
  );
}

function product(s: Spec): DemoProduct {
  const options: [string, string[]][] = [];
  const productOptions: Option[] = [];
  if (s.colours) {
    options.push(["Color", s.colours.map((c) => c[0])]);
    productOptions.push({
      name: "Color",
      optionType: "color",
      choices: s.colours.map(([name, hex]) => ({ value: hex, description: name })),
    });
  }
  for (const [name, choices] of Object.entries(s.options ?? {})) {
    options.push([name, choices]);
    productOptions.push({ name, optionType: "drop_down", choices: choices.map((c) => ({ value: c, description: c })) });
  }

  // Variants that differ from the product: their own price (extra) or their own stock. Full choices each.
  const variants: Variant[] = [];
  if (options.length > 0) {
    for (const choices of combinations(options)) {
      const extra = Object.values(choices).reduce((sum, c) => sum + (s.extra?.[c] ?? 0), 0);
      const stock = s.stockOf?.filter(([partial]) => Object.entries(partial).every(([k, v]) => choices[k] === v)).at(-1);
      if (extra === 0 && !stock) continue;
      variants.push({
        choices,
        ...(extra ? { price: round2(s.price + extra) } : {}),
        ...(stock ? { stock: { quantity: stock[1] } } : {}),
      });
    }
  }

  const media: Media[] = s.colours
    ? s.colours.map((c) => image(s.kind, c, `${s.name} in ${c[0]}`, c[0]))
    : [image(s.kind, s.colour ?? C.stone, s.name)];
  media.push(...(s.moreMedia ?? []));

  const sections: Section[] = [];
  if (s.materials) sections.push({ title: "Materials", description: s.materials });
  if (s.care) sections.push({ title: "Care", description: s.care });
  sections.push(...(s.sections ?? []));
  sections.push(s.digital ? DIGITAL_DELIVERY : SHIPPING);

  const ribbon = s.ribbon ?? (s.discount ? "Sale" : undefined);
  const collections = [...(s.collections ?? [])];
  if (s.discount) collections.push("sale");
  if (s.ribbon === "New") collections.push("new-arrivals");

  return {
    name: s.name,
    slug: s.slug,
    productType: s.digital ? "digital" : "physical",
    description: s.description,
    ...(s.highlights
      ? {
          richDescription: {
            nodes: [
              para(s.description),
              heading("Highlights"),
              bullets(s.highlights.map(([lead, rest]) => [{ bold: lead }, rest])),
              ...(s.care ? [para("Looking after it: see ", CARE_GUIDE, ".")] : []),
            ],
          },
        }
      : {}),
    sku: s.sku,
    ...(s.weight !== undefined && !s.digital ? { weight: s.weight } : {}),
    priceData: { price: s.price },
    ...(s.cost !== undefined ? { costAndProfitData: { itemCost: s.cost } } : {}),
    ...(s.discount ? { discount: s.discount } : {}),
    ...(s.pricePerUnit ? { pricePerUnitData: s.pricePerUnit } : {}),
    ...(ribbon ? { ribbon } : {}),
    ...(s.brand ? { brand: s.brand } : {}),
    ...(productOptions.length ? { manageVariants: true, productOptions } : {}),
    stock: s.quantity !== undefined ? { trackInventory: true, quantity: s.quantity } : { trackInventory: false, inStock: true },
    ...(variants.length ? { variants } : {}),
    additionalInfoSections: sections,
    ...(s.seo ? { seoData: seo(...s.seo) } : {}),
    media,
    collections: [...new Set(collections)],
  };
}

/** A builder with defaults for one kind of product; collections are added to the defaults' collections. */
type Essentials = Pick<Spec, "name" | "slug" | "sku" | "description" | "price">;
const category =
  (defaults: Partial<Spec>) =>
  (s: Essentials & Partial<Spec>): DemoProduct =>
    product({ kind: "tee", ...defaults, ...s, collections: [...(defaults.collections ?? []), ...(s.collections ?? [])] });

/* ---------------------------------------------------------------- brands and categories */

const FERNHILL = "Fernhill";
const RIDGELINE = "Ridgeline Outfitters";
const LOOMWELL = "Loomwell";
const SALTMARSH = "Saltmarsh & Co.";
const NORTHPAW = "Northpaw";
const KETTLE = "Kettle & Pine";
const HARBOR = "Harbor Roast";

const ADULT_SIZES = ["XS", "S", "M", "L", "XL"];
const ADULT_SIZES_XXL = ["S", "M", "L", "XL", "XXL"];
const KIDS_SIZES = ["2Y", "4Y", "6Y", "8Y", "10Y"];
const SHOE_SIZES = ["EU 38", "EU 39", "EU 40", "EU 41", "EU 42", "EU 43", "EU 44", "EU 45", "EU 46"];
const GRINDS = ["Whole bean", "Filter", "Espresso", "French press"];

const COTTON_CARE = "Machine wash cold with similar colours, inside out. Tumble dry low or hang to dry. Do not bleach.";
const WOOL_CARE = "Hand wash cold or use a wool cycle. Dry flat in the shade. Air it between wears instead of washing often.";

const tee = category({
  kind: "tee",
  collections: ["t-shirts"],
  weight: 0.2,
  options: { Size: ADULT_SIZES },
  extra: { XL: 2 },
  care: COTTON_CARE,
});
const hoodie = category({
  kind: "hoodie",
  collections: ["hoodies"],
  weight: 0.65,
  options: { Size: ADULT_SIZES_XXL },
  extra: { XL: 4, XXL: 6 },
  care: COTTON_CARE,
});
const shoe = category({ kind: "shoe", collections: ["shoes"], weight: 0.8, options: { Size: SHOE_SIZES } });
const bag = category({ kind: "backpack", collections: ["bags"], weight: 0.9 });
const home = category({ kind: "mug", collections: ["home"], weight: 0.4 });
const coffee = category({
  kind: "coffee",
  collections: ["coffee"],
  brand: HARBOR,
  weight: 0.27,
  options: { Grind: GRINDS },
  pricePerUnit: grams(250),
  sections: [{ title: "Brewing", description: "Use 15 g of coffee per 250 ml of water just off the boil. Best within six weeks of the roast date." }],
});
const accessory = category({ kind: "cap", collections: ["accessories"], weight: 0.1 });
const digital = category({ kind: "book", collections: ["gifts"], digital: true });

/* ---------------------------------------------------------------- collections */

export const demoCollections: DemoCollection[] = [
  {
    name: "T-shirts",
    slug: "t-shirts",
    description: "Soft everyday tees in organic cotton, linen and merino, from plain crews to trail graphics.",
    media: { url: imageUrl("tee", C.navy), altText: "A navy t-shirt", width: 800, height: 800 },
  },
  {
    name: "Hoodies & sweatshirts",
    slug: "hoodies",
    description: "Warm layers for cold mornings and campfire evenings.",
    media: { url: imageUrl("hoodie", C.forest), altText: "A forest green hoodie", width: 800, height: 800 },
  },
  {
    name: "Shoes",
    slug: "shoes",
    description: "Boots for the trail, sneakers for town and slippers for the cabin.",
    media: { url: imageUrl("boot", C.brown), altText: "A chestnut hiking boot", width: 800, height: 800 },
  },
  {
    name: "Bags",
    slug: "bags",
    description: "Daypacks, totes and duffels made to carry a lot and last a long time.",
    media: { url: imageUrl("backpack", C.rust), altText: "A rust-coloured daypack", width: 800, height: 800 },
  },
  {
    name: "Home",
    slug: "home",
    description: "Mugs, throws, candles and small things that make a home feel lived in.",
    media: { url: imageUrl("mug", C.sage), altText: "A sage stoneware mug", width: 800, height: 800 },
  },
  {
    name: "Coffee & tea",
    slug: "coffee",
    description: "Small-batch coffee roasted weekly by Harbor Roast, plus tea and drinking chocolate.",
    media: { url: imageUrl("coffee", C.rust), altText: "A kraft bag of coffee beans", width: 800, height: 800 },
  },
  {
    name: "Accessories",
    slug: "accessories",
    description: "Beanies, caps, socks and the little things you reach for every day.",
    media: { url: imageUrl("beanie", C.mustard), altText: "A mustard knitted beanie", width: 800, height: 800 },
  },
  {
    name: "Gifts",
    slug: "gifts",
    description: "Gift cards, printables and small presents for people who like being outside.",
    media: { url: imageUrl("gift", C.burgundy), altText: "A wrapped gift box", width: 800, height: 800 },
  },
  {
    name: "Sale",
    slug: "sale",
    description: "Last-season colours and overstock at reduced prices, while they last.",
    media: { url: imageUrl("tag", C.terracotta), altText: "A price tag", width: 800, height: 800 },
  },
  {
    name: "New arrivals",
    slug: "new-arrivals",
    description: "Just landed: the newest products in the shop.",
    media: { url: imageUrl("sparkle", C.sky), altText: "Sparkles announcing new products", width: 800, height: 800 },
  },
];

/* ---------------------------------------------------------------- products */

export const demoProducts: DemoProduct[] = [
  // T-shirts
  tee({
    name: "Everyday Organic Tee",
    slug: "everyday-organic-tee",
    sku: "FS-TEE-001",
    brand: FERNHILL,
    ribbon: "Best seller",
    description: "Our everyday crew-neck tee in soft organic cotton. A regular fit that keeps its shape wash after wash.",
    price: 28,
    cost: 9.4,
    colours: [C.navy, C.white, C.forest],
    quantity: 40,
    stockOf: [
      [{ Color: "Forest", Size: "XS" }, 0],
      [{ Color: "White", Size: "XL" }, 3],
    ],
    materials: "100% organic cotton jersey, 180 g/m². GOTS certified.",
    highlights: [
      ["Organic cotton", " jersey that gets softer with every wash."],
      ["Regular fit", " with a slightly dropped shoulder."],
      ["Pre-shrunk", ", so the size you buy is the size you keep."],
    ],
    seo: ["Everyday Organic Tee | Fernhill Supply", "A soft organic cotton crew-neck t-shirt in navy, white and forest green."],
  }),
  tee({
    name: "Trail Map Graphic Tee",
    slug: "trail-map-graphic-tee",
    sku: "FS-TEE-002",
    brand: RIDGELINE,
    ribbon: "New",
    description: "A relaxed tee printed with a contour map of our favourite ridge walk. Water-based inks that stay soft.",
    price: 32,
    cost: 11,
    colours: [C.sand, C.olive, C.charcoal],
    options: { Size: ADULT_SIZES_XXL },
    extra: { XXL: 3 },
    quantity: 25,
    materials: "100% cotton, 200 g/m². Water-based print.",
    highlights: [
      ["Hand-drawn", " contour map of the Fernhill ridge loop."],
      ["Water-based inks", " with no plastic feel."],
    ],
  }),
  tee({
    name: "Heavyweight Pocket Tee",
    slug: "heavyweight-pocket-tee",
    sku: "FS-TEE-003",
    brand: LOOMWELL,
    description: "A thick, boxy tee with a chest pocket. Built to be worn hard and washed often.",
    price: 36,
    cost: 13,
    colours: [C.black, C.white, C.rust],
    quantity: 30,
    stockOf: [[{ Color: "Rust", Size: "S" }, 0]],
    materials: "100% combed cotton, 260 g/m².",
  }),
  tee({
    name: "Merino Base Layer Tee",
    slug: "merino-base-layer-tee",
    sku: "FS-TEE-004",
    brand: RIDGELINE,
    description: "A light merino tee that regulates temperature and resists odour on multi-day hikes.",
    price: 68,
    cost: 26,
    weight: 0.15,
    colours: [C.charcoal, C.forest],
    quantity: 12,
    stockOf: [[{ Size: "XS" }, 2]],
    materials: "87% merino wool, 13% nylon core, 150 g/m².",
    care: WOOL_CARE,
    highlights: [
      ["Merino wool", " stays warm when damp and does not hold smells."],
      ["Flatlock seams", " so nothing rubs under a pack."],
      ["Nylon core", " for strength where wool alone would wear through."],
    ],
  }),
  tee({
    name: "Waffle Long Sleeve Tee",
    slug: "waffle-long-sleeve-tee",
    sku: "FS-TEE-005",
    kind: "longsleeve",
    brand: FERNHILL,
    description: "A waffle-knit long sleeve that works alone in spring or under a flannel in autumn.",
    price: 42,
    cost: 15,
    weight: 0.28,
    colours: [C.oatmeal, C.sage, C.navy],
    quantity: 20,
    materials: "100% cotton waffle knit.",
  }),
  tee({
    name: "Linen Blend Crew Tee",
    slug: "linen-blend-crew-tee",
    sku: "FS-TEE-006",
    brand: LOOMWELL,
    description: "Breezy linen and cotton for hot days. Slightly textured, with a clean crew neck.",
    price: 38,
    cost: 14,
    discount: percent(20),
    colours: [C.sand, C.sky],
    quantity: 18,
    stockOf: [[{ Color: "Sky Blue", Size: "M" }, 0]],
    materials: "55% linen, 45% cotton.",
  }),
  tee({
    name: "Kids' Little Explorer Tee",
    slug: "kids-little-explorer-tee",
    sku: "FS-TEE-007",
    brand: NORTHPAW,
    description: "A tough little tee for puddle jumping and tree climbing, with a tiny fox on the chest.",
    price: 18,
    cost: 6,
    weight: 0.12,
    colours: [C.mustard, C.sky, C.coral],
    options: { Size: KIDS_SIZES },
    extra: {},
    quantity: 22,
    stockOf: [[{ Size: "2Y" }, 4]],
    materials: "100% organic cotton.",
    highlights: [
      ["Reinforced", " neck and shoulder seams."],
      ["Roomy fit", " that lasts through a growth spurt."],
    ],
  }),
  tee({
    name: "Breton Stripe Long Sleeve",
    slug: "breton-stripe-long-sleeve",
    sku: "FS-TEE-008",
    kind: "longsleeve",
    brand: SALTMARSH,
    description: "The classic sailor stripe in a heavy cotton with a wide boat neck.",
    price: 45,
    cost: 16,
    weight: 0.3,
    colours: [C.navy, C.burgundy],
    quantity: 15,
    materials: "100% cotton interlock.",
  }),
  tee({
    name: "Washed Ringer Tee",
    slug: "washed-ringer-tee",
    sku: "FS-TEE-009",
    brand: SALTMARSH,
    description: "A garment-washed tee with contrast ribbing at the neck and sleeves, soft from the first wear.",
    price: 30,
    cost: 10,
    colour: C.natural,
    materials: "100% cotton, garment washed.",
  }),
  tee({
    name: "Sun Shield UPF 50 Tee",
    slug: "sun-shield-upf-tee",
    sku: "FS-TEE-010",
    brand: RIDGELINE,
    description: "A quick-drying tee rated UPF 50 for long days on the water or above the tree line.",
    price: 45,
    cost: 17,
    weight: 0.16,
    discount: amountOff(10),
    colours: [C.sky, C.stone],
    quantity: 14,
    materials: "Recycled polyester with a UPF 50 weave.",
  }),
  tee({
    name: "Relaxed V-Neck Tee",
    slug: "relaxed-v-neck-tee",
    sku: "FS-TEE-011",
    brand: LOOMWELL,
    description: "A drapey slub-cotton tee with a shallow V-neck. Back in the spring.",
    price: 30,
    cost: 10.5,
    colours: [C.black, C.terracotta],
    quantity: 0,
    materials: "100% slub cotton.",
  }),

  // Hoodies & sweatshirts
  hoodie({
    name: "Campfire Hoodie",
    slug: "campfire-hoodie",
    sku: "FS-HOD-001",
    brand: FERNHILL,
    ribbon: "Best seller",
    description: "A heavyweight brushed-back hoodie with a lined hood and a deep kangaroo pocket.",
    price: 72,
    cost: 27,
    colours: [C.forest, C.rust, C.charcoal],
    quantity: 20,
    stockOf: [
      [{ Color: "Rust", Size: "M" }, 0],
      [{ Color: "Charcoal", Size: "XXL" }, 2],
    ],
    materials: "80% organic cotton, 20% recycled polyester fleece, 400 g/m².",
    highlights: [
      ["Brushed fleece", " inside, smooth cotton outside."],
      ["Lined hood", " with flat drawcords that stay put."],
      ["Ribbed cuffs", " that keep their stretch."],
    ],
    seo: ["Campfire Hoodie | Fernhill Supply", "A heavyweight organic cotton hoodie for cold mornings and campfire evenings."],
  }),
  hoodie({
    name: "Alpine Zip Fleece Hoodie",
    slug: "alpine-zip-fleece-hoodie",
    sku: "FS-HOD-002",
    brand: RIDGELINE,
    description: "A full-zip grid fleece with a snug hood. Warm for its weight and packs small.",
    price: 89,
    cost: 34,
    weight: 0.45,
    colours: [C.navy, C.black],
    quantity: 12,
    materials: "100% recycled polyester grid fleece.",
    highlights: [
      ["Grid fleece", " traps warmth and breathes on the climb."],
      ["Two zip pockets", " for hands, phone or snacks."],
    ],
  }),
  hoodie({
    name: "Lightweight Loop-Back Hoodie",
    slug: "loop-back-hoodie",
    sku: "FS-HOD-003",
    brand: LOOMWELL,
    ribbon: "New",
    description: "A mid-weight loop-back hoodie for in-between weather, with a relaxed fit and raw-edge pocket.",
    price: 64,
    cost: 23,
    weight: 0.5,
    colours: [C.heather, C.sage, C.lavender],
    quantity: 18,
    materials: "100% cotton French terry, 300 g/m².",
  }),
  hoodie({
    name: "Kids' Cosy Hoodie",
    slug: "kids-cosy-hoodie",
    sku: "FS-HOD-004",
    brand: NORTHPAW,
    description: "A soft fleece hoodie for small adventurers, with bear ears on the hood.",
    price: 38,
    cost: 13,
    weight: 0.3,
    discount: percent(20),
    colours: [C.coral, C.mustard],
    options: { Size: KIDS_SIZES },
    extra: {},
    quantity: 10,
    stockOf: [[{ Color: "Mustard", Size: "10Y" }, 0]],
    materials: "80% organic cotton, 20% recycled polyester.",
  }),
  hoodie({
    name: "Sherpa-Lined Hoodie",
    slug: "sherpa-lined-hoodie",
    sku: "FS-HOD-005",
    brand: RIDGELINE,
    ribbon: "Limited",
    description: "Our warmest hoodie: a canvas-faced zip hoodie lined throughout with sherpa fleece.",
    price: 118,
    cost: 46,
    weight: 1.1,
    colours: [C.brown, C.charcoal],
    quantity: 6,
    stockOf: [[{ Color: "Chestnut", Size: "S" }, 0]],
    materials: "Shell: 100% cotton canvas. Lining: 100% polyester sherpa.",
    care: "Machine wash cold on a gentle cycle. Hang to dry; do not tumble dry the sherpa.",
    highlights: [
      ["Canvas shell", " that shrugs off wind and brambles."],
      ["Sherpa lining", " in the body, sleeves and hood."],
      ["Limited run", " of 200 pieces this season."],
    ],
  }),
  hoodie({
    name: "Classic Crewneck Sweatshirt",
    slug: "classic-crewneck-sweatshirt",
    sku: "FS-HOD-006",
    kind: "sweater",
    brand: FERNHILL,
    description: "A classic crewneck with a V-insert at the neck and ribbed side panels.",
    price: 58,
    cost: 20,
    weight: 0.55,
    discount: percent(25),
    colours: [C.oatmeal, C.navy, C.forest],
    quantity: 24,
    materials: "100% organic cotton fleece.",
  }),
  hoodie({
    name: "Harbour Quarter-Zip Pullover",
    slug: "harbour-quarter-zip",
    sku: "FS-HOD-007",
    kind: "sweater",
    brand: SALTMARSH,
    description: "A quarter-zip pullover in dense cotton with a stand-up collar that blocks the sea breeze.",
    price: 79,
    cost: 29,
    weight: 0.6,
    colours: [C.slate, C.burgundy],
    quantity: 9,
    materials: "100% cotton, brushed inside.",
  }),
  hoodie({
    name: "Fisherman Rib Knit Sweater",
    slug: "fisherman-rib-sweater",
    sku: "FS-HOD-008",
    kind: "sweater",
    brand: LOOMWELL,
    ribbon: "New",
    description: "A chunky rib-knit sweater in undyed wool, knitted in a small mill in the north.",
    price: 129,
    cost: 52,
    weight: 0.8,
    colours: [C.oatmeal, C.navy],
    options: { Size: ["S", "M", "L", "XL"] },
    extra: {},
    quantity: 7,
    materials: "100% British wool.",
    care: WOOL_CARE,
    highlights: [
      ["Undyed wool", " in its natural oatmeal, or a deep navy."],
      ["Knitted to last", " for decades with a little care."],
    ],
  }),

  // Shoes
  shoe({
    name: "Trailhead Hiking Boot",
    slug: "trailhead-hiking-boot",
    sku: "FS-SHO-001",
    kind: "boot",
    brand: RIDGELINE,
    description: "A waterproof leather hiking boot with a grippy lugged sole and a cushioned midsole for long days.",
    price: 165,
    cost: 64,
    weight: 1.4,
    colours: [C.brown, C.charcoal],
    quantity: 8,
    stockOf: [
      [{ Size: "EU 42" }, 2],
      [{ Color: "Charcoal", Size: "EU 38" }, 0],
    ],
    materials: "Full-grain leather upper, waterproof membrane, rubber lug sole.",
    care: "Brush off mud, let dry away from heat and wax the leather every few months.",
    highlights: [
      ["Waterproof", " membrane, sealed seams."],
      ["Vibram-style lugs", " for mud, rock and wet grass."],
      ["Resoleable", " by any good cobbler."],
    ],
    seo: ["Trailhead Hiking Boot | Fernhill Supply", "A waterproof leather hiking boot with a lugged sole, in chestnut and charcoal."],
  }),
  shoe({
    name: "Everyday Canvas Sneaker",
    slug: "everyday-canvas-sneaker",
    sku: "FS-SHO-002",
    brand: FERNHILL,
    ribbon: "Best seller",
    description: "A low-top canvas sneaker with a natural rubber sole. Goes with everything.",
    price: 65,
    cost: 22,
    weight: 0.7,
    colours: [C.white, C.navy, C.sage],
    quantity: 15,
    stockOf: [[{ Color: "White", Size: "EU 40" }, 0]],
    materials: "Organic cotton canvas upper, natural rubber sole.",
  }),
  shoe({
    name: "Harbour Deck Shoe",
    slug: "harbour-deck-shoe",
    sku: "FS-SHO-003",
    brand: SALTMARSH,
    description: "A hand-sewn leather deck shoe with a siped, non-marking sole.",
    price: 85,
    cost: 31,
    discount: percent(15),
    colours: [C.tan, C.navy],
    quantity: 10,
    materials: "Oiled leather upper, rawhide laces, rubber sole.",
  }),
  shoe({
    name: "Ridge Trail Runner",
    slug: "ridge-trail-runner",
    sku: "FS-SHO-004",
    brand: RIDGELINE,
    ribbon: "New",
    description: "A light trail running shoe with a rock plate and a sticky rubber outsole.",
    price: 129,
    cost: 48,
    weight: 0.6,
    colours: [C.slate, C.coral],
    quantity: 12,
    materials: "Recycled mesh upper, EVA midsole, rubber outsole.",
    highlights: [
      ["Rock plate", " under the forefoot."],
      ["Drains fast", " after stream crossings."],
    ],
  }),
  shoe({
    name: "Wool House Slipper",
    slug: "wool-house-slipper",
    sku: "FS-SHO-005",
    brand: NORTHPAW,
    description: "A boiled-wool slipper with a suede sole, for cold floors and slow mornings.",
    price: 48,
    cost: 17,
    weight: 0.35,
    collections: ["home"],
    colours: [C.heather, C.burgundy],
    options: { Size: ["S (EU 36–38)", "M (EU 39–41)", "L (EU 42–44)", "XL (EU 45–46)"] },
    quantity: 20,
    materials: "Boiled wool upper, suede sole.",
    care: "Spot clean. Brush off dust and air outside.",
  }),
  shoe({
    name: "Puddle Rain Boot",
    slug: "puddle-rain-boot",
    sku: "FS-SHO-006",
    kind: "boot",
    brand: SALTMARSH,
    description: "A natural rubber rain boot with a cotton lining and a pull tab.",
    price: 75,
    cost: 24,
    weight: 1.2,
    discount: percent(15),
    colours: [C.olive, C.black, C.mustard],
    quantity: 10,
    stockOf: [[{ Color: "Mustard", Size: "EU 38" }, 0]],
    materials: "Natural rubber, cotton lining.",
  }),
  shoe({
    name: "Recovery Slide",
    slug: "recovery-slide",
    sku: "FS-SHO-007",
    brand: FERNHILL,
    description: "A cushioned slide for after the hike, the gym or the beach.",
    price: 35,
    cost: 10,
    weight: 0.4,
    colours: [C.black, C.sand],
    options: { Size: ["EU 36–37", "EU 38–39", "EU 40–41", "EU 42–43", "EU 44–45"] },
    materials: "Plant-based EVA foam.",
  }),

  // Bags
  bag({
    name: "Summit Daypack 22 L",
    slug: "summit-daypack-22l",
    sku: "FS-BAG-001",
    brand: RIDGELINE,
    description: "A 22-litre daypack with a padded laptop sleeve, side bottle pockets and a weatherproof base.",
    price: 95,
    cost: 36,
    colours: [C.forest, C.navy, C.rust],
    quantity: 14,
    stockOf: [[{ Color: "Rust" }, 0]],
    materials: "Recycled 600D polyester with a PFC-free coating.",
    highlights: [
      ["22 litres", ", enough for a day out or the daily commute."],
      ["Padded sleeve", ' fits a 15" laptop.'],
      ["Lifetime warranty", " on seams and zips."],
    ],
    seo: ["Summit Daypack 22 L | Fernhill Supply", "A 22-litre recycled daypack with a laptop sleeve and lifetime warranty."],
  }),
  bag({
    name: "Waxed Canvas Tote",
    slug: "waxed-canvas-tote",
    sku: "FS-BAG-002",
    kind: "tote",
    brand: SALTMARSH,
    description: "A roomy waxed canvas tote with leather handles and an inside zip pocket.",
    price: 58,
    cost: 21,
    weight: 0.6,
    collections: ["gifts"],
    colours: [C.olive, C.brown],
    quantity: 16,
    materials: "Waxed cotton canvas, vegetable-tanned leather handles.",
    care: "Wipe clean with a damp cloth. Re-wax once a year.",
  }),
  bag({
    name: "Organic Market Tote",
    slug: "organic-market-tote",
    sku: "FS-BAG-003",
    kind: "tote",
    brand: FERNHILL,
    description: "A simple, sturdy cotton tote for the market, the library or the beach.",
    price: 18,
    cost: 4.5,
    weight: 0.15,
    colour: C.natural,
    materials: "Heavy organic cotton canvas.",
  }),
  bag({
    name: "Roll-Top Messenger Bag",
    slug: "roll-top-messenger",
    sku: "FS-BAG-004",
    kind: "messenger",
    brand: RIDGELINE,
    description: "A waterproof roll-top messenger for cycling in any weather.",
    price: 115,
    cost: 44,
    weight: 1.1,
    colours: [C.black, C.slate],
    quantity: 7,
    materials: "Welded TPU-coated fabric.",
    highlights: [
      ["Roll-top closure", " keeps out the rain."],
      ["Reflective strap", " for dark evenings."],
    ],
  }),
  bag({
    name: "Everyday Hip Pack",
    slug: "everyday-hip-pack",
    sku: "FS-BAG-005",
    kind: "hippack",
    brand: NORTHPAW,
    description: "A small hip pack for keys, phone and snacks, worn around the waist or across the chest.",
    price: 34,
    cost: 11,
    weight: 0.3,
    discount: amountOff(8),
    colours: [C.coral, C.black, C.sage],
    quantity: 20,
    stockOf: [[{ Color: "Sage" }, 5]],
    materials: "Recycled nylon.",
  }),
  bag({
    name: "Weekender Duffel",
    slug: "weekender-duffel",
    sku: "FS-BAG-006",
    kind: "duffel",
    brand: LOOMWELL,
    ribbon: "Limited",
    description: "A 40-litre canvas and leather duffel, sized for carry-on and built for a lifetime of weekends away.",
    price: 145,
    cost: 55,
    weight: 1.3,
    colours: [C.navy, C.brown],
    quantity: 5,
    materials: "Heavy cotton canvas, vegetable-tanned leather trim, brass hardware.",
    highlights: [
      ["40 litres", " and carry-on size."],
      ["Shoe compartment", " at one end."],
      ["Brass hardware", " that ages well."],
    ],
  }),
  bag({
    name: "Packable Daypack",
    slug: "packable-daypack",
    sku: "FS-BAG-007",
    brand: RIDGELINE,
    ribbon: "New",
    description: "An 18-litre daypack that folds into its own pocket. Ideal for travel.",
    price: 39,
    cost: 13,
    weight: 0.25,
    colours: [C.sky, C.mustard],
    quantity: 25,
    materials: "Ripstop recycled nylon.",
  }),

  // Home
  home({
    name: "Speckled Stoneware Mug",
    slug: "speckled-stoneware-mug",
    sku: "FS-HOM-001",
    brand: KETTLE,
    description: "A hand-glazed stoneware mug that holds 350 ml. Every one is a little different.",
    price: 22,
    cost: 7,
    collections: ["gifts", "coffee"],
    colours: [C.oatmeal, C.sage, C.slate],
    quantity: 30,
    stockOf: [[{ Color: "Slate" }, 4]],
    materials: "Stoneware, food-safe glaze.",
    care: "Dishwasher and microwave safe.",
    highlights: [
      ["Hand glazed", " in a small studio."],
      ["350 ml", ", a proper cup of coffee."],
    ],
  }),
  home({
    name: "Enamel Camp Mug",
    slug: "enamel-camp-mug",
    sku: "FS-HOM-002",
    brand: KETTLE,
    description: "A classic enamel mug for the campsite or the kitchen. Light, tough and 300 ml.",
    price: 16,
    cost: 4.8,
    weight: 0.2,
    colours: [C.white, C.forest, C.navy],
    quantity: 50,
    materials: "Enamelled steel.",
    care: "Hand wash. Not for the microwave.",
  }),
  home({
    name: "Wool Throw Blanket",
    slug: "wool-throw-blanket",
    sku: "FS-HOM-003",
    kind: "blanket",
    brand: LOOMWELL,
    description: "A soft lambswool throw, 130 × 180 cm, woven on a traditional loom.",
    price: 120,
    cost: 45,
    weight: 1.2,
    colours: [C.ochre, C.sage, C.charcoal],
    quantity: 8,
    materials: "100% lambswool.",
    care: WOOL_CARE,
    highlights: [
      ["Lambswool", ": soft, warm and not itchy."],
      ["130 × 180 cm", ", big enough for two on the sofa."],
      ["Woven", " in a family-run mill."],
    ],
  }),
  home({
    name: "Cedar & Smoke Soy Candle",
    slug: "cedar-smoke-candle",
    sku: "FS-HOM-004",
    kind: "candle",
    brand: KETTLE,
    description: "A hand-poured soy candle that smells like a campfire in a cedar forest.",
    price: 24,
    cost: 7,
    weight: 0.5,
    collections: ["gifts"],
    colour: C.tan,
    options: { Size: ["180 g", "400 g"] },
    extra: { "400 g": 14 },
    quantity: 20,
    stockOf: [[{ Size: "400 g" }, 6]],
    materials: "Soy wax, cotton wick, amber glass.",
    care: "Trim the wick to 5 mm before lighting. Never leave burning unattended.",
  }),
  home({
    name: "Linen Tea Towels, Set of 2",
    slug: "linen-tea-towels",
    sku: "FS-HOM-005",
    kind: "towel",
    brand: LOOMWELL,
    description: "Two stonewashed linen tea towels that dry fast and get better with age.",
    price: 19,
    cost: 6,
    weight: 0.2,
    discount: percent(20),
    colours: [C.rust, C.sage, C.stone],
    quantity: 30,
    materials: "100% stonewashed linen.",
    care: "Machine wash at 40 °C. Tumble dry low.",
  }),
  home({
    name: "Canvas Cushion Cover",
    slug: "canvas-cushion-cover",
    sku: "FS-HOM-006",
    kind: "cushion",
    brand: LOOMWELL,
    description: "A heavy cotton cushion cover with a hidden zip. Insert not included.",
    price: 34,
    cost: 11,
    weight: 0.3,
    colours: [C.mustard, C.navy, C.terracotta],
    options: { Size: ["45 × 45 cm", "60 × 60 cm"] },
    extra: { "60 × 60 cm": 8 },
    quantity: 12,
    stockOf: [[{ Color: "Terracotta", Size: "60 × 60 cm" }, 0]],
    materials: "100% cotton canvas.",
    care: COTTON_CARE,
  }),
  home({
    name: "Insulated Steel Bottle",
    slug: "insulated-steel-bottle",
    sku: "FS-HOM-007",
    kind: "bottle",
    brand: RIDGELINE,
    description: "A double-walled steel bottle that keeps drinks cold for 24 hours or hot for 12.",
    price: 32,
    cost: 10,
    weight: 0.35,
    collections: ["accessories"],
    colours: [C.forest, C.sky, C.black],
    options: { Size: ["500 ml", "750 ml"] },
    extra: { "750 ml": 4 },
    quantity: 40,
    stockOf: [[{ Color: "Sky Blue", Size: "750 ml" }, 0]],
    materials: "18/8 stainless steel, powder-coated finish.",
    care: "Hand wash only.",
    highlights: [
      ["24 hours cold", ", 12 hours hot."],
      ["Leak-proof", " lid with a carry loop."],
    ],
  }),
  home({
    name: "Ceramic Pour-Over Dripper",
    slug: "ceramic-pour-over-dripper",
    sku: "FS-HOM-008",
    kind: "dripper",
    brand: KETTLE,
    description: "A porcelain cone dripper for one or two cups. Uses size 02 paper filters.",
    price: 29,
    cost: 9,
    weight: 0.45,
    collections: ["coffee"],
    colours: [C.white, C.charcoal],
    quantity: 18,
    materials: "Porcelain.",
    care: "Dishwasher safe.",
  }),
  home({
    name: "Rechargeable Camp Lantern",
    slug: "rechargeable-camp-lantern",
    sku: "FS-HOM-009",
    kind: "lantern",
    brand: RIDGELINE,
    description: "A dimmable LED lantern that charges over USB-C and lasts three nights on one charge.",
    price: 49,
    cost: 18,
    weight: 0.6,
    colour: C.olive,
    quantity: 11,
    materials: "Aluminium body, polycarbonate globe, lithium-ion battery.",
    sections: [{ title: "Battery", description: "4400 mAh, 40 hours on low, 6 hours on high. Charges in 4 hours over USB-C." }],
  }),
  home({
    name: "Cotton Rope Hammock",
    slug: "cotton-rope-hammock",
    sku: "FS-HOM-010",
    kind: "hammock",
    brand: FERNHILL,
    description: "A hand-knotted cotton rope hammock with hardwood spreader bars. Sold out until summer.",
    price: 89,
    cost: 32,
    weight: 1.6,
    colours: [C.sand, C.terracotta],
    quantity: 0,
    materials: "Cotton rope, oiled hardwood bars.",
  }),
  home({
    name: "Beeswax Food Wraps, Set of 3",
    slug: "beeswax-food-wraps",
    sku: "FS-HOM-011",
    kind: "wraps",
    brand: KETTLE,
    ribbon: "Best seller",
    description: "Reusable beeswax wraps in three sizes, to replace cling film.",
    price: 15,
    cost: 4,
    weight: 0.1,
    colour: C.mustard,
    materials: "Organic cotton, beeswax, pine resin, jojoba oil.",
    care: "Rinse in cool water with a little soap. Refresh in a warm oven when they lose their cling.",
  }),

  // Coffee & tea
  coffee({
    name: "Morning Ridge Blend, 250 g",
    slug: "morning-ridge-blend",
    sku: "FS-COF-001",
    ribbon: "Best seller",
    description: "Our house blend of Brazilian and Guatemalan beans: chocolate, hazelnut and a hint of orange.",
    price: 14.5,
    cost: 5.2,
    colour: C.rust,
    quantity: 60,
    stockOf: [[{ Grind: "French press" }, 8]],
    highlights: [
      ["Tastes like", " milk chocolate, hazelnut and orange peel."],
      ["Roasted weekly", " in small batches."],
      ["Great", " as filter, espresso or in a moka pot."],
    ],
    moreMedia: [image("mug", C.oatmeal, "A cup of Morning Ridge Blend in an oatmeal stoneware mug")],
    seo: ["Morning Ridge Blend Coffee | Fernhill Supply", "A chocolatey house blend coffee, roasted weekly. 250 g, whole bean or ground."],
  }),
  coffee({
    name: "Ethiopia Yirgacheffe, 250 g",
    slug: "ethiopia-yirgacheffe",
    sku: "FS-COF-002",
    description: "A washed single origin from Yirgacheffe: jasmine, bergamot and lemon. Back after the next harvest.",
    price: 17,
    cost: 6.4,
    colour: C.sky,
    quantity: 0,
    highlights: [
      ["Washed process", ", bright and clean."],
      ["Best as filter", " to bring out the florals."],
    ],
  }),
  coffee({
    name: "Colombia Huila, 250 g",
    slug: "colombia-huila",
    sku: "FS-COF-003",
    description: "A sweet, round single origin from the Huila highlands: caramel, red apple and cocoa.",
    price: 16,
    cost: 6,
    colour: C.forest,
    quantity: 35,
    stockOf: [[{ Grind: "Espresso" }, 0]],
    highlights: [
      ["Tastes like", " caramel, red apple and cocoa."],
      ["Grown", " by the Los Naranjos cooperative at 1,700 m."],
    ],
  }),
  coffee({
    name: "Night Owl Decaf, 250 g",
    slug: "night-owl-decaf",
    sku: "FS-COF-004",
    description: "A Swiss Water decaf that still tastes like coffee: brown sugar and dark cherry.",
    price: 15,
    cost: 5.8,
    discount: percent(20),
    colour: C.navy,
    quantity: 20,
  }),
  coffee({
    name: "House Espresso, 1 kg",
    slug: "house-espresso-1kg",
    sku: "FS-COF-005",
    description: "A full-bodied espresso roast in a kilo bag for serious home baristas and small offices.",
    price: 42,
    cost: 16,
    weight: 1.05,
    colour: C.burgundy,
    options: { Grind: ["Whole bean", "Espresso"] },
    pricePerUnit: grams(1000),
    quantity: 15,
  }),
  coffee({
    name: "Cold Brew Concentrate, 1 L",
    slug: "cold-brew-concentrate",
    sku: "FS-COF-006",
    kind: "bottle",
    ribbon: "New",
    description: "Smooth cold brew concentrate. Mix one part with two parts water or milk over ice.",
    price: 18,
    cost: 6,
    weight: 1.1,
    colour: C.brown,
    options: {},
    pricePerUnit: millilitres(1000),
    quantity: 24,
    sections: [{ title: "Storage", description: "Keep refrigerated and drink within 10 days of opening." }],
  }),
  coffee({
    name: "Roaster's Sampler, 3 × 100 g",
    slug: "roasters-sampler",
    sku: "FS-COF-007",
    ribbon: "Limited",
    description: "Three 100 g bags of this month's single origins, picked by our roaster. A lovely gift.",
    price: 26,
    cost: 9.5,
    weight: 0.34,
    collections: ["gifts"],
    colour: C.mustard,
    options: { Grind: ["Whole bean", "Filter"] },
    pricePerUnit: grams(300),
    quantity: 10,
  }),
  coffee({
    name: "Masala Chai Loose Leaf, 100 g",
    slug: "masala-chai-loose-leaf",
    sku: "FS-COF-008",
    kind: "tin",
    brand: KETTLE,
    description: "Assam black tea with cardamom, cinnamon, ginger and clove, in a reusable tin.",
    price: 11,
    cost: 3.5,
    weight: 0.14,
    colour: C.terracotta,
    options: {},
    pricePerUnit: grams(100),
    quantity: 40,
    sections: [{ title: "Brewing", description: "Simmer 2 teaspoons in 150 ml water for 3 minutes, add 150 ml milk and sweeten to taste." }],
  }),
  coffee({
    name: "Dark Drinking Chocolate, 300 g",
    slug: "dark-drinking-chocolate",
    sku: "FS-COF-009",
    kind: "tin",
    brand: KETTLE,
    description: "Flakes of 70% dark chocolate that melt into hot milk for a thick, proper hot chocolate.",
    price: 12,
    cost: 4,
    weight: 0.33,
    discount: amountOff(2),
    colour: C.brown,
    options: {},
    pricePerUnit: grams(300),
    quantity: 28,
    sections: [{ title: "Preparing", description: "Whisk 30 g of flakes into 200 ml of hot milk until smooth." }],
  }),

  // Accessories
  accessory({
    name: "Ribbed Merino Beanie",
    slug: "ribbed-merino-beanie",
    sku: "FS-ACC-001",
    kind: "beanie",
    brand: NORTHPAW,
    ribbon: "Best seller",
    description: "A snug double-layer beanie in fine merino with a deep turn-up.",
    price: 29,
    cost: 9,
    collections: ["gifts"],
    colours: [C.rust, C.navy, C.mustard],
    quantity: 35,
    stockOf: [[{ Color: "Mustard" }, 0]],
    materials: "100% extra-fine merino wool.",
    care: WOOL_CARE,
    highlights: [
      ["Double layer", " over the ears."],
      ["One size", " that fits most adults."],
    ],
  }),
  accessory({
    name: "Canvas Dad Cap",
    slug: "canvas-dad-cap",
    sku: "FS-ACC-002",
    kind: "cap",
    brand: FERNHILL,
    description: "A soft, unstructured six-panel cap with an adjustable brass buckle.",
    price: 26,
    cost: 7.5,
    weight: 0.12,
    colours: [C.olive, C.sand, C.navy],
    quantity: 30,
    materials: "Washed cotton canvas.",
  }),
  accessory({
    name: "Merino Hiking Socks",
    slug: "merino-hiking-socks",
    sku: "FS-ACC-003",
    kind: "socks",
    brand: RIDGELINE,
    description: "Cushioned merino socks for hiking boots, with a reinforced heel and toe.",
    price: 22,
    cost: 7,
    colours: [C.forest, C.charcoal],
    options: { Size: ["S (EU 36–39)", "M (EU 40–43)", "L (EU 44–47)"] },
    quantity: 40,
    stockOf: [[{ Color: "Forest", Size: "S (EU 36–39)" }, 0]],
    materials: "64% merino wool, 33% nylon, 3% elastane.",
    care: "Machine wash warm inside out. Do not tumble dry.",
    highlights: [
      ["Full cushion", " underfoot."],
      ["Guaranteed", ": if you wear a hole in them, we replace them."],
    ],
  }),
  accessory({
    name: "Everyday Crew Socks, 3-Pack",
    slug: "everyday-crew-socks",
    sku: "FS-ACC-004",
    kind: "socks",
    brand: FERNHILL,
    description: "Three pairs of organic cotton crew socks with a ribbed cuff that does not slip.",
    price: 18,
    cost: 5,
    discount: percent(20),
    colour: C.heather,
    options: { Size: ["S (EU 36–39)", "M (EU 40–43)", "L (EU 44–47)"] },
    materials: "80% organic cotton, 18% nylon, 2% elastane.",
  }),
  accessory({
    name: "Lambswool Scarf",
    slug: "lambswool-scarf",
    sku: "FS-ACC-005",
    kind: "scarf",
    brand: LOOMWELL,
    description: "A long, light lambswool scarf with fringed ends, 30 × 180 cm.",
    price: 55,
    cost: 19,
    weight: 0.2,
    collections: ["gifts"],
    colours: [C.burgundy, C.slate],
    quantity: 12,
    materials: "100% lambswool.",
    care: WOOL_CARE,
  }),
  accessory({
    name: "Leather Card Wallet",
    slug: "leather-card-wallet",
    sku: "FS-ACC-006",
    kind: "wallet",
    brand: SALTMARSH,
    description: "A slim wallet for six cards and a few folded notes, in vegetable-tanned leather.",
    price: 45,
    cost: 14,
    weight: 0.08,
    collections: ["gifts"],
    colours: [C.tan, C.black],
    quantity: 20,
    materials: "Vegetable-tanned leather, waxed linen thread.",
    care: "Condition the leather once or twice a year.",
    highlights: [
      ["Six card slots", " and a centre pocket."],
      ["Hand-stitched", " with waxed linen thread."],
    ],
  }),
  accessory({
    name: "Touchscreen Gloves",
    slug: "touchscreen-gloves",
    sku: "FS-ACC-007",
    kind: "gloves",
    brand: NORTHPAW,
    description: "Knit gloves with conductive fingertips, so you can use your phone without taking them off.",
    price: 24,
    cost: 7,
    discount: percent(25),
    colours: [C.charcoal, C.olive],
    options: { Size: ["S", "M", "L"] },
    quantity: 18,
    stockOf: [[{ Size: "L" }, 3]],
    materials: "Merino and nylon blend, conductive yarn fingertips.",
  }),
  accessory({
    name: "Printed Cotton Bandana",
    slug: "printed-cotton-bandana",
    sku: "FS-ACC-008",
    kind: "bandana",
    brand: FERNHILL,
    description: "A soft cotton bandana with a fern print. A neckerchief, headband, sweat rag or dog accessory.",
    price: 12,
    cost: 2.5,
    weight: 0.05,
    colours: [C.rust, C.navy, C.sage],
    materials: "100% cotton voile.",
  }),
  accessory({
    name: "Polarised Sunglasses",
    slug: "polarised-sunglasses",
    sku: "FS-ACC-009",
    kind: "sunglasses",
    brand: SALTMARSH,
    description: "Classic round frames with polarised lenses that cut glare off water and snow.",
    price: 79,
    cost: 22,
    weight: 0.15,
    colours: [C.black, C.tortoise],
    quantity: 15,
    materials: "Bio-acetate frame, polarised CR-39 lenses, UV400.",
    sections: [{ title: "In the box", description: "A waxed canvas case and a microfibre cloth." }],
  }),
  accessory({
    name: "Key Clip Carabiner",
    slug: "key-clip-carabiner",
    sku: "FS-ACC-010",
    kind: "carabiner",
    brand: RIDGELINE,
    description: "A small aluminium carabiner and split ring for keys. Not for climbing.",
    price: 9,
    cost: 2,
    weight: 0.03,
    colours: [C.olive, C.coral],
  }),
  accessory({
    name: "Trail Badge Enamel Pin Set",
    slug: "trail-badge-pin-set",
    sku: "FS-ACC-011",
    kind: "pin",
    brand: NORTHPAW,
    ribbon: "New",
    description: "Three hard enamel pins: a mountain, a fern and a campfire. For jackets, packs and hats.",
    price: 14,
    cost: 3.5,
    weight: 0.05,
    collections: ["gifts"],
    colour: C.forest,
    quantity: 45,
    materials: "Hard enamel on gold-plated iron, rubber clutches.",
  }),

  // Digital
  digital({
    name: "Fernhill Gift Card",
    slug: "fernhill-gift-card",
    sku: "FS-DIG-001",
    kind: "card",
    brand: FERNHILL,
    description: "A digital gift card, emailed with your message. Spend it on anything in the shop, online or in person.",
    price: 25,
    colour: C.forest,
    options: { Amount: ["$25", "$50", "$100", "$150"] },
    extra: { $50: 25, $100: 75, $150: 125 },
    sections: [
      { title: "How it works", description: "The card arrives by email with a code. It never expires and can be used over several orders." },
    ],
    seo: ["Gift Card | Fernhill Supply", "A digital gift card for Fernhill Supply, from $25 to $150, delivered by email."],
    highlights: [
      ["Delivered by email", " within minutes."],
      ["Never expires", " and can be spent over several orders."],
    ],
  }),
  digital({
    name: "Printable Trail Journal (PDF)",
    slug: "printable-trail-journal",
    sku: "FS-DIG-002",
    brand: FERNHILL,
    description: "A 40-page printable hiking journal: route notes, gear lists, weather logs and pages for sketches.",
    price: 6,
    cost: 0,
    colour: C.sage,
    collections: ["accessories"],
    highlights: [
      ["40 pages", " in A5 and US Letter."],
      ["Print at home", ", as many copies as you like."],
    ],
  }),
  digital({
    name: "Home Brew Guide (E-book)",
    slug: "home-brew-guide",
    sku: "FS-DIG-003",
    brand: HARBOR,
    description: "Our roaster's guide to better coffee at home: grind, ratios, water and six brew methods step by step.",
    price: 9,
    cost: 0,
    colour: C.brown,
    collections: ["coffee"],
    moreMedia: [image("dripper", C.white, "A white pour-over dripper, one of the six brew methods in the guide")],
    highlights: [
      ["Six methods", ": pour-over, French press, AeroPress, moka pot, cold brew and espresso."],
      ["Recipes", " with ratios and timings."],
    ],
  }),
];
