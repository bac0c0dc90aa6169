// A new product: the same editor page, without a product to load.
export { action, default, headers, loader, meta } from "./edit";
