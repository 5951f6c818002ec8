/**
 * What the host's plugin ops load on first use, in one module (one lazy
 * chunk): the plugin operations, the installed store's reader and the
 * inventory's lines.
 */
export * from "../plugins/operations";
export { readInstalledPlugins as readInstalled } from "../../storage/plugins/store";
export { formatInventory } from "../../project/plugins/inventory";
