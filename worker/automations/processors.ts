import type { z } from "zod";
import type { Processor } from "../events/consumer";

// Placeholder while the automations are being built in this change (abandoned carts, back in stock, inventory).
export const automationProcessors: Processor<any>[] = [];
export const automationSchemas: Record<string, z.ZodType> = {};
