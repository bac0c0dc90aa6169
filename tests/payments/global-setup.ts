import type { TestProject } from "vitest/node";
import { startStripeFake } from "./stripe-fake";

/** Starts the Stripe fake on loopback (Node) for the workerd suites; they read its origin with inject("stripeFakeOrigin"). */
export default async function setup(project: TestProject) {
  const fake = await startStripeFake();
  project.provide("stripeFakeOrigin", fake.origin);
  return () => fake.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    stripeFakeOrigin: string;
  }
}
