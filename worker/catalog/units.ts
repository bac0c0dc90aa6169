/** Units a price per unit may be given in (Wix's measurement units). Its own module: the console's forms list them
 * without pulling the catalogue's schemas into the browser. */
export const MEASUREMENT_UNITS = [
  "ML", "CL", "L", "CBM", "MG", "G", "KG", "MM", "CM", "M", "SQM", "OZ", "LB", "FLOZ", "PT", "QT", "GAL", "IN", "FT", "YD", "SQFT",
] as const;
