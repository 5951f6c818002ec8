import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The first executable `name` in the folders of `pathList` (a PATH value); null when none. */
export function findOnPath(name: string, pathList: string | undefined): string | null {
    for (const dir of (pathList ?? "").split(delimiter)) {
        if (dir === "") continue;
        const candidate = join(dir, name);
        try {
            accessSync(candidate, constants.X_OK);
            return candidate;
        } catch {
            // not here
        }
    }
    return null;
}
