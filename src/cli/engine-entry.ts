/**
 * The engine as one lazily loaded module, whichever front end asks for it:
 * print mode runs from here and the chat starts its session from here. One
 * split point instead of two keeps the code both share in fewer, larger
 * chunks, which a print run opens, compiles and links faster.
 */
export { runPrintCommand } from "./print-command";
export { openApiSession } from "./api-session";
export { startInteractiveSession, summarizeInventory } from "./interactive-engine";
// The full settings check, for a chat launch whose user settings the plain reader leaves to it.
export { loadUserSettings } from "../storage/settings/load";
// `north doctor` creates providers to check their credentials: through here, so the
// provider entry stays in the engine's chunks and the print path opens no extra file.
export { createProvider } from "../providers/index";
