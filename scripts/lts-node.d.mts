/** The npm package and version of the LTS binary. */
export declare const LTS_NODE_PACKAGE: string;
/** The path of a current Node LTS binary, installed from the registry on first use. */
export declare function ltsNodeBinary(): string;
