/** Digital delivery: files of digital products, signed download links, the delivery email and the download route. */
export { attachDemoFiles } from "./demo";
export {
  availabilityOf,
  digitalDeliveryProcessor,
  ownOrderDownloads,
  type DownloadAvailability,
  type OrderDownload,
  type OrderDownloads,
} from "./delivery";
export { deleteProductFile, listProductFiles, MAX_DOWNLOAD_BYTES, uploadProductFile, type DigitalFile } from "./files";
export { downloadFiles, downloadsApi } from "./routes";
export { digitalFiles, lineDownloads } from "./tables";
