// The pages prepared by PUT /page/:name (../worker.ts), in this isolate's memory: wrangler dev runs one isolate, so
// what a PUT stored is there for every later GET. The route reads it on the server; in a browser the map is empty.

/** One product card, as a listing loader returns it (the same shape as the data-mode floor's, ../../worker.js). */
export type Item = { id: string; name: string; href: string; price: string; image: string };

/** name -> { items: its product cards, padding: text making the page exactly its size } */
export const pages = new Map<string, { items: Item[]; padding: string }>();
