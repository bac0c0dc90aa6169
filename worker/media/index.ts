/** Product media in R2: what other folders, the pages and the composition root use. */
export { mediaApi, mediaFiles } from "./routes";
export {
  deleteMediaObjects,
  ensureStored,
  IMAGE_EXTENSIONS,
  MAX_IMAGE_BYTES,
  MAX_UPLOAD_FORM_BYTES,
  MEDIA_CACHE_CONTROL,
  MEDIA_FILE,
  mediaKeyOf,
  notMultipart,
  sniffImage,
  uploadImage,
  uploadImages,
  type ImageType,
  type SniffedImage,
  type UploadedImage,
  type UploadFile,
} from "./store";
