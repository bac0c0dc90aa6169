/** Whether a path belongs to the merchant console (its pages never read or set the shopper's session). */
export function isConsolePath(pathname: string): boolean {
  // `/console.data` is React Router's data request for the console's home.
  return pathname === "/console" || pathname === "/console.data" || pathname.startsWith("/console/");
}
