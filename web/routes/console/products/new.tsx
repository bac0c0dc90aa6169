// A new product: the same editor page, without a product to load.
export { action, default, loader, meta } from "./edit";
