/** Module-level bindings the no-module-state rule allows, each with its reason. */
export declare const MODULE_STATE_ALLOWLIST: ReadonlyArray<{
    file: string;
    name: string;
    reason: string;
}>;
