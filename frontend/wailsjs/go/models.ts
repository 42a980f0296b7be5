export namespace view {
	
	export class AppInfo {
	    version: string;
	    commit: string;
	    buildDate: string;
	    platform: string;
	
	    static createFrom(source: any = {}) {
	        return new AppInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.commit = source["commit"];
	        this.buildDate = source["buildDate"];
	        this.platform = source["platform"];
	    }
	}
	export class Applied {
	    into: string;
	    fastForward: boolean;
	    nothing?: boolean;
	    commit: string;
	
	    static createFrom(source: any = {}) {
	        return new Applied(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.into = source["into"];
	        this.fastForward = source["fastForward"];
	        this.nothing = source["nothing"];
	        this.commit = source["commit"];
	    }
	}
	export class Attempt {
	    taskId: string;
	    reason?: string;
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new Attempt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.reason = source["reason"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Budget {
	    maxCostUsd?: number;
	    maxTokens?: number;
	
	    static createFrom(source: any = {}) {
	        return new Budget(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.maxCostUsd = source["maxCostUsd"];
	        this.maxTokens = source["maxTokens"];
	    }
	}
	export class CheckRef {
	    name: string;
	    command: string;
	    status: string;
	    exitCode: number;
	    durationMs: number;
	    verdict: string;
	    tail?: string;
	    message?: string;
	    sentence: string;
	
	    static createFrom(source: any = {}) {
	        return new CheckRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.status = source["status"];
	        this.exitCode = source["exitCode"];
	        this.durationMs = source["durationMs"];
	        this.verdict = source["verdict"];
	        this.tail = source["tail"];
	        this.message = source["message"];
	        this.sentence = source["sentence"];
	    }
	}
	export class CheckResult {
	    runId: string;
	    round: number;
	    position: number;
	    name: string;
	    command: string;
	    status: string;
	    exitCode: number;
	    durationMs: number;
	    tail: string;
	    message?: string;
	    verdict: string;
	    dir?: string;
	    // Go type: time
	    createdAt: any;
	
	    static createFrom(source: any = {}) {
	        return new CheckResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runId = source["runId"];
	        this.round = source["round"];
	        this.position = source["position"];
	        this.name = source["name"];
	        this.command = source["command"];
	        this.status = source["status"];
	        this.exitCode = source["exitCode"];
	        this.durationMs = source["durationMs"];
	        this.tail = source["tail"];
	        this.message = source["message"];
	        this.verdict = source["verdict"];
	        this.dir = source["dir"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ConflictState {
	    taskId: string;
	    files: string[];
	    resolver: string;
	    byUser: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ConflictState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.files = source["files"];
	        this.resolver = source["resolver"];
	        this.byUser = source["byUser"];
	    }
	}
	export class Overrides {
	    maxWorkers?: number;
	    workerTimeout?: number;
	    inactivityTimeout?: number;
	    maxRetries?: number;
	    permissionMode?: string;
	    budget?: Budget;
	    isolation?: string;
	    allow?: string[];
	    deny?: string[];
	    machines?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Overrides(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.maxWorkers = source["maxWorkers"];
	        this.workerTimeout = source["workerTimeout"];
	        this.inactivityTimeout = source["inactivityTimeout"];
	        this.maxRetries = source["maxRetries"];
	        this.permissionMode = source["permissionMode"];
	        this.budget = this.convertValues(source["budget"], Budget);
	        this.isolation = source["isolation"];
	        this.allow = source["allow"];
	        this.deny = source["deny"];
	        this.machines = source["machines"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CreateRequest {
	    templateId: string;
	    cwd: string;
	    request: string;
	    variables?: Record<string, any>;
	    overrides?: Overrides;
	
	    static createFrom(source: any = {}) {
	        return new CreateRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.templateId = source["templateId"];
	        this.cwd = source["cwd"];
	        this.request = source["request"];
	        this.variables = source["variables"];
	        this.overrides = this.convertValues(source["overrides"], Overrides);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Decision {
	    kind: string;
	    taskId?: string;
	    by?: string;
	    text: string;
	    question?: string;
	    resolution?: string;
	    tasks?: string[];
	    // Go type: time
	    at?: any;
	
	    static createFrom(source: any = {}) {
	        return new Decision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.taskId = source["taskId"];
	        this.by = source["by"];
	        this.text = source["text"];
	        this.question = source["question"];
	        this.resolution = source["resolution"];
	        this.tasks = source["tasks"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class DoctorCheck {
	    name: string;
	    ok: boolean;
	    detail: string;
	    fix?: string;
	
	    static createFrom(source: any = {}) {
	        return new DoctorCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.ok = source["ok"];
	        this.detail = source["detail"];
	        this.fix = source["fix"];
	    }
	}
	export class DoctorItem {
	    name: string;
	    ok: boolean;
	    state: string;
	    note?: string;
	
	    static createFrom(source: any = {}) {
	        return new DoctorItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.ok = source["ok"];
	        this.state = source["state"];
	        this.note = source["note"];
	    }
	}
	export class DoctorList {
	    title: string;
	    items: DoctorItem[];
	
	    static createFrom(source: any = {}) {
	        return new DoctorList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.items = this.convertValues(source["items"], DoctorItem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class DoctorReport {
	    host: string;
	    label: string;
	    target: string;
	    version: string;
	    checks: DoctorCheck[];
	    lists: DoctorList[];
	    ok: boolean;
	    verdict?: string;
	
	    static createFrom(source: any = {}) {
	        return new DoctorReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.label = source["label"];
	        this.target = source["target"];
	        this.version = source["version"];
	        this.checks = this.convertValues(source["checks"], DoctorCheck);
	        this.lists = this.convertValues(source["lists"], DoctorList);
	        this.ok = source["ok"];
	        this.verdict = source["verdict"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Driver {
	    pid: number;
	    face?: string;
	    machine?: string;
	    self: boolean;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new Driver(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.pid = source["pid"];
	        this.face = source["face"];
	        this.machine = source["machine"];
	        this.self = source["self"];
	        this.text = source["text"];
	    }
	}
	export class FileChange {
	    path: string;
	    added: number;
	    removed: number;
	
	    static createFrom(source: any = {}) {
	        return new FileChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.added = source["added"];
	        this.removed = source["removed"];
	    }
	}
	export class FileDiff {
	    path: string;
	    status: string;
	    added: number;
	    removed: number;
	    binary?: boolean;
	    tooLarge?: boolean;
	    old: string;
	    new: string;
	
	    static createFrom(source: any = {}) {
	        return new FileDiff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.status = source["status"];
	        this.added = source["added"];
	        this.removed = source["removed"];
	        this.binary = source["binary"];
	        this.tooLarge = source["tooLarge"];
	        this.old = source["old"];
	        this.new = source["new"];
	    }
	}
	export class ReportChecks {
	    ran: boolean;
	    looked: boolean;
	    note: string;
	    baseline: CheckRef[];
	    after: CheckRef[];
	    contradiction?: string;
	    preExistingNote?: string;
	
	    static createFrom(source: any = {}) {
	        return new ReportChecks(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ran = source["ran"];
	        this.looked = source["looked"];
	        this.note = source["note"];
	        this.baseline = this.convertValues(source["baseline"], CheckRef);
	        this.after = this.convertValues(source["after"], CheckRef);
	        this.contradiction = source["contradiction"];
	        this.preExistingNote = source["preExistingNote"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ReportCost {
	    usd: number;
	    inputTokens: number;
	    outputTokens: number;
	    label: string;
	    budgetUsd?: number;
	    budgetTokens?: number;
	    limitWaits: number;
	
	    static createFrom(source: any = {}) {
	        return new ReportCost(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.usd = source["usd"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.label = source["label"];
	        this.budgetUsd = source["budgetUsd"];
	        this.budgetTokens = source["budgetTokens"];
	        this.limitWaits = source["limitWaits"];
	    }
	}
	export class Limitation {
	    kind: string;
	    taskId?: string;
	    text: string;
	    severity?: string;
	    files?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Limitation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.taskId = source["taskId"];
	        this.text = source["text"];
	        this.severity = source["severity"];
	        this.files = source["files"];
	    }
	}
	export class ReportFile {
	    path: string;
	    tasks: string[];
	
	    static createFrom(source: any = {}) {
	        return new ReportFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.tasks = source["tasks"];
	    }
	}
	export class RemediationRound {
	    round: number;
	    message?: string;
	    tasks: string[];
	
	    static createFrom(source: any = {}) {
	        return new RemediationRound(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.round = source["round"];
	        this.message = source["message"];
	        this.tasks = source["tasks"];
	    }
	}
	export class Iterations {
	    total: number;
	    remediation: RemediationRound[];
	    retries: Attempt[];
	    rejections: Attempt[];
	    reprompts: number;
	
	    static createFrom(source: any = {}) {
	        return new Iterations(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = source["total"];
	        this.remediation = this.convertValues(source["remediation"], RemediationRound);
	        this.retries = this.convertValues(source["retries"], Attempt);
	        this.rejections = this.convertValues(source["rejections"], Attempt);
	        this.reprompts = source["reprompts"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TaskRef {
	    id: string;
	    title: string;
	    status: string;
	    reason?: string;
	    retries: number;
	    unstructured?: boolean;
	    costUsd?: number;
	    byUser?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TaskRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.status = source["status"];
	        this.reason = source["reason"];
	        this.retries = source["retries"];
	        this.unstructured = source["unstructured"];
	        this.costUsd = source["costUsd"];
	        this.byUser = source["byUser"];
	    }
	}
	export class TaskCounts {
	    total: number;
	    completed: number;
	    failed: number;
	    skipped: number;
	    skippedByUser: number;
	    notRun: number;
	
	    static createFrom(source: any = {}) {
	        return new TaskCounts(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = source["total"];
	        this.completed = source["completed"];
	        this.failed = source["failed"];
	        this.skipped = source["skipped"];
	        this.skippedByUser = source["skippedByUser"];
	        this.notRun = source["notRun"];
	    }
	}
	export class FinalReport {
	    runId: string;
	    status: string;
	    message?: string;
	    error?: string;
	    // Go type: time
	    finishedAt?: any;
	    tasks: TaskCounts;
	    completed: TaskRef[];
	    failed: TaskRef[];
	    skipped: TaskRef[];
	    notRun: TaskRef[];
	    iterations: Iterations;
	    notes: string[];
	    decisions: Decision[];
	    files: ReportFile[];
	    absent?: ReportFile[];
	    limitations: Limitation[];
	    issues: string[];
	    cost: ReportCost;
	    checks?: ReportChecks;
	
	    static createFrom(source: any = {}) {
	        return new FinalReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runId = source["runId"];
	        this.status = source["status"];
	        this.message = source["message"];
	        this.error = source["error"];
	        this.finishedAt = this.convertValues(source["finishedAt"], null);
	        this.tasks = this.convertValues(source["tasks"], TaskCounts);
	        this.completed = this.convertValues(source["completed"], TaskRef);
	        this.failed = this.convertValues(source["failed"], TaskRef);
	        this.skipped = this.convertValues(source["skipped"], TaskRef);
	        this.notRun = this.convertValues(source["notRun"], TaskRef);
	        this.iterations = this.convertValues(source["iterations"], Iterations);
	        this.notes = source["notes"];
	        this.decisions = this.convertValues(source["decisions"], Decision);
	        this.files = this.convertValues(source["files"], ReportFile);
	        this.absent = this.convertValues(source["absent"], ReportFile);
	        this.limitations = this.convertValues(source["limitations"], Limitation);
	        this.issues = source["issues"];
	        this.cost = this.convertValues(source["cost"], ReportCost);
	        this.checks = this.convertValues(source["checks"], ReportChecks);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunHost {
	    kind?: string;
	    label?: string;
	    path?: string;
	    version?: string;
	    endpoint?: string;
	    description?: string;
	
	    static createFrom(source: any = {}) {
	        return new RunHost(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.label = source["label"];
	        this.path = source["path"];
	        this.version = source["version"];
	        this.endpoint = source["endpoint"];
	        this.description = source["description"];
	    }
	}
	export class RunLimits {
	    // Go type: time
	    waitingUntil?: any;
	    waitingFor?: string;
	    resumeDue?: boolean;
	    workerCap?: number;
	    budgetUsd?: number;
	    budgetTokens?: number;
	    budgetWarned?: boolean;
	    budgetPaused?: boolean;
	    costEstimated?: boolean;
	    costSimulated?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RunLimits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.waitingUntil = this.convertValues(source["waitingUntil"], null);
	        this.waitingFor = source["waitingFor"];
	        this.resumeDue = source["resumeDue"];
	        this.workerCap = source["workerCap"];
	        this.budgetUsd = source["budgetUsd"];
	        this.budgetTokens = source["budgetTokens"];
	        this.budgetWarned = source["budgetWarned"];
	        this.budgetPaused = source["budgetPaused"];
	        this.costEstimated = source["costEstimated"];
	        this.costSimulated = source["costSimulated"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Reconnecting {
	    // Go type: time
	    since: any;
	    // Go type: time
	    until: any;
	    reason?: string;
	    model?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Reconnecting(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.since = this.convertValues(source["since"], null);
	        this.until = this.convertValues(source["until"], null);
	        this.reason = source["reason"];
	        this.model = source["model"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Run {
	    reconnecting?: Reconnecting;
	    drivenBy?: Driver;
	    id: string;
	    templateId: string;
	    templateName: string;
	    cwd: string;
	    request: string;
	    variables: Record<string, any>;
	    status: string;
	    resumeStatus?: string;
	    phase: string;
	    mainSessionId?: string;
	    message?: string;
	    error?: string;
	    issues: string[];
	    tasksTotal: number;
	    tasksCompleted: number;
	    tasksFailed: number;
	    tasksSkipped: number;
	    inputTokens: number;
	    outputTokens: number;
	    costUsd: number;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	    // Go type: time
	    startedAt?: any;
	    // Go type: time
	    completedAt?: any;
	    limits: RunLimits;
	    host: RunHost;
	
	    static createFrom(source: any = {}) {
	        return new Run(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.reconnecting = this.convertValues(source["reconnecting"], Reconnecting);
	        this.drivenBy = this.convertValues(source["drivenBy"], Driver);
	        this.id = source["id"];
	        this.templateId = source["templateId"];
	        this.templateName = source["templateName"];
	        this.cwd = source["cwd"];
	        this.request = source["request"];
	        this.variables = source["variables"];
	        this.status = source["status"];
	        this.resumeStatus = source["resumeStatus"];
	        this.phase = source["phase"];
	        this.mainSessionId = source["mainSessionId"];
	        this.message = source["message"];
	        this.error = source["error"];
	        this.issues = source["issues"];
	        this.tasksTotal = source["tasksTotal"];
	        this.tasksCompleted = source["tasksCompleted"];
	        this.tasksFailed = source["tasksFailed"];
	        this.tasksSkipped = source["tasksSkipped"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.costUsd = source["costUsd"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.startedAt = this.convertValues(source["startedAt"], null);
	        this.completedAt = this.convertValues(source["completedAt"], null);
	        this.limits = this.convertValues(source["limits"], RunLimits);
	        this.host = this.convertValues(source["host"], RunHost);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HistoryPage {
	    runs: Run[];
	    total: number;
	    limit: number;
	    offset: number;
	    nextOffset: number;
	
	    static createFrom(source: any = {}) {
	        return new HistoryPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runs = this.convertValues(source["runs"], Run);
	        this.total = source["total"];
	        this.limit = source["limit"];
	        this.offset = source["offset"];
	        this.nextOffset = source["nextOffset"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HistoryQuery {
	    status?: string[];
	    templateId?: string;
	    text?: string;
	    // Go type: time
	    from?: any;
	    // Go type: time
	    to?: any;
	    limit?: number;
	    offset?: number;
	    sort?: string;
	
	    static createFrom(source: any = {}) {
	        return new HistoryQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.templateId = source["templateId"];
	        this.text = source["text"];
	        this.from = this.convertValues(source["from"], null);
	        this.to = this.convertValues(source["to"], null);
	        this.limit = source["limit"];
	        this.offset = source["offset"];
	        this.sort = source["sort"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HostKind {
	    name: string;
	    label: string;
	    description: string;
	    fields: string[];
	
	    static createFrom(source: any = {}) {
	        return new HostKind(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.label = source["label"];
	        this.description = source["description"];
	        this.fields = source["fields"];
	    }
	}
	export class HostProgram {
	    host: string;
	    label: string;
	    inUse: boolean;
	    path?: string;
	    version?: string;
	    problem?: string;
	
	    static createFrom(source: any = {}) {
	        return new HostProgram(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.label = source["label"];
	        this.inUse = source["inUse"];
	        this.path = source["path"];
	        this.version = source["version"];
	        this.problem = source["problem"];
	    }
	}
	export class HostStatus {
	    host: string;
	    label: string;
	    state: string;
	    reason?: string;
	    endpoint?: string;
	    page?: string;
	
	    static createFrom(source: any = {}) {
	        return new HostStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.label = source["label"];
	        this.state = source["state"];
	        this.reason = source["reason"];
	        this.endpoint = source["endpoint"];
	        this.page = source["page"];
	    }
	}
	export class Suggestion {
	    rule: string;
	    label: string;
	
	    static createFrom(source: any = {}) {
	        return new Suggestion(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rule = source["rule"];
	        this.label = source["label"];
	    }
	}
	export class InboxItem {
	    kind: string;
	    runId: string;
	    runName: string;
	    taskId?: string;
	    title: string;
	    detail?: string;
	    requestId?: string;
	    sessionId?: string;
	    // Go type: time
	    since: any;
	    key?: string;
	    summary?: string;
	    suggestions: Suggestion[];
	
	    static createFrom(source: any = {}) {
	        return new InboxItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.runId = source["runId"];
	        this.runName = source["runName"];
	        this.taskId = source["taskId"];
	        this.title = source["title"];
	        this.detail = source["detail"];
	        this.requestId = source["requestId"];
	        this.sessionId = source["sessionId"];
	        this.since = this.convertValues(source["since"], null);
	        this.key = source["key"];
	        this.summary = source["summary"];
	        this.suggestions = this.convertValues(source["suggestions"], Suggestion);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class Machine {
	    name: string;
	    host: string;
	    workspace: string;
	    claudePath: string;
	    maxWorkers: number;
	    env: string[];
	
	    static createFrom(source: any = {}) {
	        return new Machine(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.host = source["host"];
	        this.workspace = source["workspace"];
	        this.claudePath = source["claudePath"];
	        this.maxWorkers = source["maxWorkers"];
	        this.env = source["env"];
	    }
	}
	export class MachinesView {
	    machines: Machine[];
	    path: string;
	    problem?: string;
	
	    static createFrom(source: any = {}) {
	        return new MachinesView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.machines = this.convertValues(source["machines"], Machine);
	        this.path = source["path"];
	        this.problem = source["problem"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NewTask {
	    id: string;
	    title: string;
	    description: string;
	    scope?: string[];
	    priority?: number;
	    dependencies?: string[];
	    complexity?: string;
	
	    static createFrom(source: any = {}) {
	        return new NewTask(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.scope = source["scope"];
	        this.priority = source["priority"];
	        this.dependencies = source["dependencies"];
	        this.complexity = source["complexity"];
	    }
	}
	export class TaskEdit {
	    id: string;
	    title?: string;
	    description?: string;
	    scope?: string[];
	    priority?: number;
	    dependencies?: string[];
	    complexity?: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskEdit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.scope = source["scope"];
	        this.priority = source["priority"];
	        this.dependencies = source["dependencies"];
	        this.complexity = source["complexity"];
	    }
	}
	export class Modifications {
	    skip?: string[];
	    unskip?: string[];
	    edit?: TaskEdit[];
	    add?: NewTask[];
	    remove?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Modifications(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.skip = source["skip"];
	        this.unskip = source["unskip"];
	        this.edit = this.convertValues(source["edit"], TaskEdit);
	        this.add = this.convertValues(source["add"], NewTask);
	        this.remove = source["remove"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class Permission {
	    requestId: string;
	    toolName: string;
	    input?: number[];
	    toolUseId?: string;
	    summary?: string;
	    key?: string;
	    suggestions: Suggestion[];
	
	    static createFrom(source: any = {}) {
	        return new Permission(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.requestId = source["requestId"];
	        this.toolName = source["toolName"];
	        this.input = source["input"];
	        this.toolUseId = source["toolUseId"];
	        this.summary = source["summary"];
	        this.key = source["key"];
	        this.suggestions = this.convertValues(source["suggestions"], Suggestion);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PermissionDecision {
	    id: number;
	    taskId: string;
	    // Go type: time
	    at: any;
	    tool: string;
	    summary: string;
	    decision: string;
	    decidedBy: string;
	    rule?: string;
	    source?: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionDecision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.taskId = source["taskId"];
	        this.at = this.convertValues(source["at"], null);
	        this.tool = source["tool"];
	        this.summary = source["summary"];
	        this.decision = source["decision"];
	        this.decidedBy = source["decidedBy"];
	        this.rule = source["rule"];
	        this.source = source["source"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PermissionPrompt {
	    requestId: string;
	    sessionId: string;
	    tool: string;
	    summary: string;
	    input: string;
	    question?: string;
	    key: string;
	    runId?: string;
	    runName?: string;
	    taskId?: string;
	    suggestions?: Suggestion[];
	
	    static createFrom(source: any = {}) {
	        return new PermissionPrompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.requestId = source["requestId"];
	        this.sessionId = source["sessionId"];
	        this.tool = source["tool"];
	        this.summary = source["summary"];
	        this.input = source["input"];
	        this.question = source["question"];
	        this.key = source["key"];
	        this.runId = source["runId"];
	        this.runName = source["runName"];
	        this.taskId = source["taskId"];
	        this.suggestions = this.convertValues(source["suggestions"], Suggestion);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PermissionRequest {
	    requestId: string;
	    sessionId?: string;
	    toolName: string;
	    input?: number[];
	    suggestions?: number[];
	    toolUseId?: string;
	
	    static createFrom(source: any = {}) {
	        return new PermissionRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.requestId = source["requestId"];
	        this.sessionId = source["sessionId"];
	        this.toolName = source["toolName"];
	        this.input = source["input"];
	        this.suggestions = source["suggestions"];
	        this.toolUseId = source["toolUseId"];
	    }
	}
	export class PermissionRules {
	    allow?: string[];
	    deny?: string[];
	
	    static createFrom(source: any = {}) {
	        return new PermissionRules(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.allow = source["allow"];
	        this.deny = source["deny"];
	    }
	}
	export class PhaseAnswer {
	    id: number;
	    runId: string;
	    phase: string;
	    attempt: number;
	    status: string;
	    data?: number[];
	    repairs: string[];
	    errors: string[];
	    // Go type: time
	    createdAt: any;
	
	    static createFrom(source: any = {}) {
	        return new PhaseAnswer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.runId = source["runId"];
	        this.phase = source["phase"];
	        this.attempt = source["attempt"];
	        this.status = source["status"];
	        this.data = source["data"];
	        this.repairs = source["repairs"];
	        this.errors = source["errors"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PullRequest {
	    url: string;
	    remote: string;
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new PullRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.remote = source["remote"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PullRequestResult {
	    opened: boolean;
	    url?: string;
	    reason?: string;
	    command: string;
	    title: string;
	    body: string;
	    bodyFile?: string;
	
	    static createFrom(source: any = {}) {
	        return new PullRequestResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.opened = source["opened"];
	        this.url = source["url"];
	        this.reason = source["reason"];
	        this.command = source["command"];
	        this.title = source["title"];
	        this.body = source["body"];
	        this.bodyFile = source["bodyFile"];
	    }
	}
	export class Push {
	    remote: string;
	    commit: string;
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new Push(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.remote = source["remote"];
	        this.commit = source["commit"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Pushed {
	    remote: string;
	    output: string;
	
	    static createFrom(source: any = {}) {
	        return new Pushed(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.remote = source["remote"];
	        this.output = source["output"];
	    }
	}
	
	
	export class Remote {
	    name: string;
	    url: string;
	
	    static createFrom(source: any = {}) {
	        return new Remote(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.url = source["url"];
	    }
	}
	export class RemoteStatus {
	    running: boolean;
	    listen: string;
	    url?: string;
	    tls: boolean;
	    fingerprint?: string;
	    behindProxy: boolean;
	    headless: boolean;
	    fromBrowser: boolean;
	    browsers: number;
	    hasLink: boolean;
	    // Go type: time
	    tokenCreated: any;
	
	    static createFrom(source: any = {}) {
	        return new RemoteStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.running = source["running"];
	        this.listen = source["listen"];
	        this.url = source["url"];
	        this.tls = source["tls"];
	        this.fingerprint = source["fingerprint"];
	        this.behindProxy = source["behindProxy"];
	        this.headless = source["headless"];
	        this.fromBrowser = source["fromBrowser"];
	        this.browsers = source["browsers"];
	        this.hasLink = source["hasLink"];
	        this.tokenCreated = this.convertValues(source["tokenCreated"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RemoteLink {
	    url?: string;
	    qr?: string;
	    status: RemoteStatus;
	
	    static createFrom(source: any = {}) {
	        return new RemoteLink(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.qr = source["qr"];
	        this.status = this.convertValues(source["status"], RemoteStatus);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Remotes {
	    remotes: Remote[];
	    default: string;
	    pushCommand: string;
	
	    static createFrom(source: any = {}) {
	        return new Remotes(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.remotes = this.convertValues(source["remotes"], Remote);
	        this.default = source["default"];
	        this.pushCommand = source["pushCommand"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class ReportExport {
	    cancelled: boolean;
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new ReportExport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.cancelled = source["cancelled"];
	        this.path = source["path"];
	    }
	}
	
	export class TemplateVariable {
	    type: string;
	    label: string;
	    description?: string;
	    default?: any;
	    required?: boolean;
	    options?: string[];
	    placeholder?: string;
	    order?: number;
	
	    static createFrom(source: any = {}) {
	        return new TemplateVariable(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.label = source["label"];
	        this.description = source["description"];
	        this.default = source["default"];
	        this.required = source["required"];
	        this.options = source["options"];
	        this.placeholder = source["placeholder"];
	        this.order = source["order"];
	    }
	}
	export class TemplatePrompt {
	    system?: string;
	    user?: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplatePrompt(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.system = source["system"];
	        this.user = source["user"];
	    }
	}
	export class TemplateResponseFormat {
	    startDelimiter: string;
	    endDelimiter: string;
	    dialect: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplateResponseFormat(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.startDelimiter = source["startDelimiter"];
	        this.endDelimiter = source["endDelimiter"];
	        this.dialect = source["dialect"];
	    }
	}
	export class TemplatePrompts {
	    responseFormat: TemplateResponseFormat;
	    analysis: TemplatePrompt;
	    taskPlanning: TemplatePrompt;
	    workerExecution: TemplatePrompt;
	    review: TemplatePrompt;
	    aggregation: TemplatePrompt;
	    verification: TemplatePrompt;
	
	    static createFrom(source: any = {}) {
	        return new TemplatePrompts(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.responseFormat = this.convertValues(source["responseFormat"], TemplateResponseFormat);
	        this.analysis = this.convertValues(source["analysis"], TemplatePrompt);
	        this.taskPlanning = this.convertValues(source["taskPlanning"], TemplatePrompt);
	        this.workerExecution = this.convertValues(source["workerExecution"], TemplatePrompt);
	        this.review = this.convertValues(source["review"], TemplatePrompt);
	        this.aggregation = this.convertValues(source["aggregation"], TemplatePrompt);
	        this.verification = this.convertValues(source["verification"], TemplatePrompt);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TemplateVerification {
	    enabled: boolean;
	    timeout: number;
	    maxRemediationRounds: number;
	
	    static createFrom(source: any = {}) {
	        return new TemplateVerification(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.timeout = source["timeout"];
	        this.maxRemediationRounds = source["maxRemediationRounds"];
	    }
	}
	export class TemplateReview {
	    enabled: boolean;
	    timeout: number;
	    reviewer: string;
	    requireBuildSuccess: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TemplateReview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.timeout = source["timeout"];
	        this.reviewer = source["reviewer"];
	        this.requireBuildSuccess = source["requireBuildSuccess"];
	    }
	}
	export class TemplatePhase {
	    enabled: boolean;
	    timeout: number;
	
	    static createFrom(source: any = {}) {
	        return new TemplatePhase(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.timeout = source["timeout"];
	    }
	}
	export class TemplatePhases {
	    analysis: TemplatePhase;
	    taskPlanning: TemplatePhase;
	    review: TemplateReview;
	    workerExecution: TemplatePhase;
	    aggregation: TemplatePhase;
	    verification: TemplateVerification;
	
	    static createFrom(source: any = {}) {
	        return new TemplatePhases(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.analysis = this.convertValues(source["analysis"], TemplatePhase);
	        this.taskPlanning = this.convertValues(source["taskPlanning"], TemplatePhase);
	        this.review = this.convertValues(source["review"], TemplateReview);
	        this.workerExecution = this.convertValues(source["workerExecution"], TemplatePhase);
	        this.aggregation = this.convertValues(source["aggregation"], TemplatePhase);
	        this.verification = this.convertValues(source["verification"], TemplateVerification);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TemplateJournal {
	    enabled: boolean;
	    archive: boolean;
	    fresh?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TemplateJournal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.archive = source["archive"];
	        this.fresh = source["fresh"];
	    }
	}
	export class TemplateSkills {
	    enabled: boolean;
	    directory?: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplateSkills(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.directory = source["directory"];
	    }
	}
	export class TemplateModels {
	    main: string;
	    easy: string;
	    normal: string;
	    complex: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplateModels(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.main = source["main"];
	        this.easy = source["easy"];
	        this.normal = source["normal"];
	        this.complex = source["complex"];
	    }
	}
	export class TemplateConfig {
	    maxWorkers: number;
	    workerTimeout: number;
	    inactivityTimeout: number;
	    maxRetries: number;
	    spawnDelay: number;
	    pollInterval: number;
	    autoConfirm: boolean;
	    permissionMode: string;
	    maxTasks: number;
	    models: TemplateModels;
	    transport: string;
	    skills: TemplateSkills;
	    journal: TemplateJournal;
	    retryFailedReports?: boolean;
	    isolation?: string;
	    budget?: Budget;
	    permissions?: PermissionRules;
	    checks?: string[];
	    checkTimeout?: number;
	    strictScope?: boolean;
	    machines?: string[];
	
	    static createFrom(source: any = {}) {
	        return new TemplateConfig(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.maxWorkers = source["maxWorkers"];
	        this.workerTimeout = source["workerTimeout"];
	        this.inactivityTimeout = source["inactivityTimeout"];
	        this.maxRetries = source["maxRetries"];
	        this.spawnDelay = source["spawnDelay"];
	        this.pollInterval = source["pollInterval"];
	        this.autoConfirm = source["autoConfirm"];
	        this.permissionMode = source["permissionMode"];
	        this.maxTasks = source["maxTasks"];
	        this.models = this.convertValues(source["models"], TemplateModels);
	        this.transport = source["transport"];
	        this.skills = this.convertValues(source["skills"], TemplateSkills);
	        this.journal = this.convertValues(source["journal"], TemplateJournal);
	        this.retryFailedReports = source["retryFailedReports"];
	        this.isolation = source["isolation"];
	        this.budget = this.convertValues(source["budget"], Budget);
	        this.permissions = this.convertValues(source["permissions"], PermissionRules);
	        this.checks = source["checks"];
	        this.checkTimeout = source["checkTimeout"];
	        this.strictScope = source["strictScope"];
	        this.machines = source["machines"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Template {
	    id: string;
	    name: string;
	    description: string;
	    icon?: string;
	    version?: string;
	    author?: string;
	    tags?: string[];
	    extends?: string;
	    config: TemplateConfig;
	    phases: TemplatePhases;
	    prompts: TemplatePrompts;
	    variables?: Record<string, TemplateVariable>;
	    ui?: Record<string, any>;
	
	    static createFrom(source: any = {}) {
	        return new Template(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.icon = source["icon"];
	        this.version = source["version"];
	        this.author = source["author"];
	        this.tags = source["tags"];
	        this.extends = source["extends"];
	        this.config = this.convertValues(source["config"], TemplateConfig);
	        this.phases = this.convertValues(source["phases"], TemplatePhases);
	        this.prompts = this.convertValues(source["prompts"], TemplatePrompts);
	        this.variables = this.convertValues(source["variables"], TemplateVariable, true);
	        this.ui = source["ui"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ResolvedTemplate {
	    template: Template;
	    chain: string[];
	    sources: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new ResolvedTemplate(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.template = this.convertValues(source["template"], Template);
	        this.chain = source["chain"];
	        this.sources = source["sources"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class RunChecks {
	    note: string;
	    running?: number;
	    results: CheckResult[];
	
	    static createFrom(source: any = {}) {
	        return new RunChecks(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.note = source["note"];
	        this.running = source["running"];
	        this.results = this.convertValues(source["results"], CheckResult);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class RunningTool {
	    name: string;
	    input?: string;
	    // Go type: time
	    startedAt: any;
	
	    static createFrom(source: any = {}) {
	        return new RunningTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.input = source["input"];
	        this.startedAt = this.convertValues(source["startedAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionInfo {
	    id: string;
	    title: string;
	    cwd: string;
	    model?: string;
	    permissionMode?: string;
	    running: boolean;
	    turnRunning: boolean;
	    turnUnknown?: boolean;
	    archived: boolean;
	    hidden: boolean;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    lastActivityAt: any;
	    pending: PermissionRequest[];
	
	    static createFrom(source: any = {}) {
	        return new SessionInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.cwd = source["cwd"];
	        this.model = source["model"];
	        this.permissionMode = source["permissionMode"];
	        this.running = source["running"];
	        this.turnRunning = source["turnRunning"];
	        this.turnUnknown = source["turnUnknown"];
	        this.archived = source["archived"];
	        this.hidden = source["hidden"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.lastActivityAt = this.convertValues(source["lastActivityAt"], null);
	        this.pending = this.convertValues(source["pending"], PermissionRequest);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TranscriptItem {
	    uuid: string;
	    timestamp: string;
	    role: string;
	    kind: string;
	    text: string;
	    tool?: string;
	    summary?: string;
	    isError?: boolean;
	    truncated?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new TranscriptItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.uuid = source["uuid"];
	        this.timestamp = source["timestamp"];
	        this.role = source["role"];
	        this.kind = source["kind"];
	        this.text = source["text"];
	        this.tool = source["tool"];
	        this.summary = source["summary"];
	        this.isError = source["isError"];
	        this.truncated = source["truncated"];
	    }
	}
	export class SessionTranscript {
	    items: TranscriptItem[];
	    total: number;
	    skipped: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionTranscript(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.items = this.convertValues(source["items"], TranscriptItem);
	        this.total = source["total"];
	        this.skipped = source["skipped"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Settings {
	    host: string;
	    cdpEndpoint: string;
	    allowRemoteCdp: boolean;
	    pagePattern: string;
	    chromePath: string;
	    headless: boolean;
	    pollIntervalMs: number;
	    notifications: boolean;
	    theme: string;
	    recentFolders: string[];
	    claudePath: string;
	    reconnectForSeconds: number;
	    autoResumeAfterLimit: boolean;
	    permissions: PermissionRules;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.host = source["host"];
	        this.cdpEndpoint = source["cdpEndpoint"];
	        this.allowRemoteCdp = source["allowRemoteCdp"];
	        this.pagePattern = source["pagePattern"];
	        this.chromePath = source["chromePath"];
	        this.headless = source["headless"];
	        this.pollIntervalMs = source["pollIntervalMs"];
	        this.notifications = source["notifications"];
	        this.theme = source["theme"];
	        this.recentFolders = source["recentFolders"];
	        this.claudePath = source["claudePath"];
	        this.reconnectForSeconds = source["reconnectForSeconds"];
	        this.autoResumeAfterLimit = source["autoResumeAfterLimit"];
	        this.permissions = this.convertValues(source["permissions"], PermissionRules);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsView {
	    settings: Settings;
	    path: string;
	    problem?: string;
	    startAdvice: string;
	    programs: HostProgram[];
	
	    static createFrom(source: any = {}) {
	        return new SettingsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.settings = this.convertValues(source["settings"], Settings);
	        this.path = source["path"];
	        this.problem = source["problem"];
	        this.startAdvice = source["startAdvice"];
	        this.programs = this.convertValues(source["programs"], HostProgram);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TaskChanges {
	    taskId: string;
	    merged: boolean;
	    dropped?: boolean;
	    error?: string;
	    changes: FileChange[];
	    resolves?: string;
	    applied?: boolean;
	    commit?: string;
	    machine?: string;
	
	    static createFrom(source: any = {}) {
	        return new TaskChanges(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.taskId = source["taskId"];
	        this.merged = source["merged"];
	        this.dropped = source["dropped"];
	        this.error = source["error"];
	        this.changes = this.convertValues(source["changes"], FileChange);
	        this.resolves = source["resolves"];
	        this.applied = source["applied"];
	        this.commit = source["commit"];
	        this.machine = source["machine"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Worktree {
	    repo: string;
	    branch: string;
	    base: string;
	    runDir: string;
	    dirty?: string[];
	    mergeCommand: string;
	    discardCommand: string;
	    tasks: TaskChanges[];
	    conflict?: ConflictState;
	    outcome?: string;
	    applied?: Applied;
	    cleaned: boolean;
	    pushes?: Push[];
	    pullRequest?: PullRequest;
	
	    static createFrom(source: any = {}) {
	        return new Worktree(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.repo = source["repo"];
	        this.branch = source["branch"];
	        this.base = source["base"];
	        this.runDir = source["runDir"];
	        this.dirty = source["dirty"];
	        this.mergeCommand = source["mergeCommand"];
	        this.discardCommand = source["discardCommand"];
	        this.tasks = this.convertValues(source["tasks"], TaskChanges);
	        this.conflict = this.convertValues(source["conflict"], ConflictState);
	        this.outcome = source["outcome"];
	        this.applied = this.convertValues(source["applied"], Applied);
	        this.cleaned = source["cleaned"];
	        this.pushes = this.convertValues(source["pushes"], Push);
	        this.pullRequest = this.convertValues(source["pullRequest"], PullRequest);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ToolStats {
	    total: number;
	    reads: number;
	    writes: number;
	    edits: number;
	    bash: number;
	    search: number;
	    web: number;
	    task: number;
	    other: number;
	    running?: RunningTool;
	
	    static createFrom(source: any = {}) {
	        return new ToolStats(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = source["total"];
	        this.reads = source["reads"];
	        this.writes = source["writes"];
	        this.edits = source["edits"];
	        this.bash = source["bash"];
	        this.search = source["search"];
	        this.web = source["web"];
	        this.task = source["task"];
	        this.other = source["other"];
	        this.running = this.convertValues(source["running"], RunningTool);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Worker {
	    runId: string;
	    taskId: string;
	    sessionId?: string;
	    status: string;
	    retryCount: number;
	    progress: number;
	    currentAction?: string;
	    tools: ToolStats;
	    summary?: string;
	    output?: string;
	    outputFiles: string[];
	    error?: string;
	    unstructured: boolean;
	    skipped: boolean;
	    waiting?: Permission;
	    questions: string[];
	    conflicts: string[];
	    missingOutputs: string[];
	    outOfScope: string[];
	    model?: string;
	    inputTokens: number;
	    outputTokens: number;
	    costUsd: number;
	    // Go type: time
	    startedAt?: any;
	    // Go type: time
	    completedAt?: any;
	    // Go type: time
	    lastActivityAt?: any;
	    // Go type: time
	    updatedAt: any;
	
	    static createFrom(source: any = {}) {
	        return new Worker(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runId = source["runId"];
	        this.taskId = source["taskId"];
	        this.sessionId = source["sessionId"];
	        this.status = source["status"];
	        this.retryCount = source["retryCount"];
	        this.progress = source["progress"];
	        this.currentAction = source["currentAction"];
	        this.tools = this.convertValues(source["tools"], ToolStats);
	        this.summary = source["summary"];
	        this.output = source["output"];
	        this.outputFiles = source["outputFiles"];
	        this.error = source["error"];
	        this.unstructured = source["unstructured"];
	        this.skipped = source["skipped"];
	        this.waiting = this.convertValues(source["waiting"], Permission);
	        this.questions = source["questions"];
	        this.conflicts = source["conflicts"];
	        this.missingOutputs = source["missingOutputs"];
	        this.outOfScope = source["outOfScope"];
	        this.model = source["model"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.costUsd = source["costUsd"];
	        this.startedAt = this.convertValues(source["startedAt"], null);
	        this.completedAt = this.convertValues(source["completedAt"], null);
	        this.lastActivityAt = this.convertValues(source["lastActivityAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Task {
	    runId: string;
	    id: string;
	    position: number;
	    title: string;
	    description: string;
	    scope: string[];
	    priority: number;
	    dependencies: string[];
	    complexity?: string;
	    skipped: boolean;
	    definition?: number[];
	    skills: string[];
	
	    static createFrom(source: any = {}) {
	        return new Task(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runId = source["runId"];
	        this.id = source["id"];
	        this.position = source["position"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.scope = source["scope"];
	        this.priority = source["priority"];
	        this.dependencies = source["dependencies"];
	        this.complexity = source["complexity"];
	        this.skipped = source["skipped"];
	        this.definition = source["definition"];
	        this.skills = source["skills"];
	    }
	}
	export class Snapshot {
	    run: Run;
	    tasks: Task[];
	    workers: Worker[];
	    answers: PhaseAnswer[];
	    parallelGroups: string[][];
	    finalReport?: FinalReport;
	    reconnecting?: Reconnecting;
	    worktree?: Worktree;
	    userReviews: boolean;
	    checks?: RunChecks;
	    permissions: PermissionDecision[];
	
	    static createFrom(source: any = {}) {
	        return new Snapshot(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run = this.convertValues(source["run"], Run);
	        this.tasks = this.convertValues(source["tasks"], Task);
	        this.workers = this.convertValues(source["workers"], Worker);
	        this.answers = this.convertValues(source["answers"], PhaseAnswer);
	        this.parallelGroups = source["parallelGroups"];
	        this.finalReport = this.convertValues(source["finalReport"], FinalReport);
	        this.reconnecting = this.convertValues(source["reconnecting"], Reconnecting);
	        this.worktree = this.convertValues(source["worktree"], Worktree);
	        this.userReviews = source["userReviews"];
	        this.checks = this.convertValues(source["checks"], RunChecks);
	        this.permissions = this.convertValues(source["permissions"], PermissionDecision);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	
	
	
	
	
	export class TemplateExport {
	    cancelled: boolean;
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplateExport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.cancelled = source["cancelled"];
	        this.path = source["path"];
	    }
	}
	export class TemplateImport {
	    cancelled: boolean;
	    template: Template;
	
	    static createFrom(source: any = {}) {
	        return new TemplateImport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.cancelled = source["cancelled"];
	        this.template = this.convertValues(source["template"], Template);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TemplateInfo {
	    id: string;
	    name: string;
	    description: string;
	    icon: string;
	    version: string;
	    author: string;
	    tags: string[];
	    extends?: string;
	    isSystem: boolean;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplateInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.icon = source["icon"];
	        this.version = source["version"];
	        this.author = source["author"];
	        this.tags = source["tags"];
	        this.extends = source["extends"];
	        this.isSystem = source["isSystem"];
	        this.error = source["error"];
	    }
	}
	
	
	
	
	export class TemplateProblem {
	    pointer: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new TemplateProblem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.pointer = source["pointer"];
	        this.message = source["message"];
	    }
	}
	
	
	
	
	
	
	
	
	
	

}

