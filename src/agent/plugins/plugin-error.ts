/** A plugin or marketplace operation that failed, with a message a user reads (no stack shown). */
export class PluginError extends Error {
    override name = "PluginError";
}
