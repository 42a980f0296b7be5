// The shapes the frontend shares with Go, named once. They come from the
// generated wailsjs models: when the bindings' Go types change, this is the
// one file that follows them. Everything else imports these names (through
// here or through api.ts), never wailsjs/go/models.
import { engine, view } from '../../wailsjs/go/models';
import type { claude, desktop, hosts, inbox, main, report, session, sessions, settings, store, template, worktree } from '../../wailsjs/go/models';

export type AppInfo = desktop.Info;
export type TemplateInfo = template.TemplateInfo;
export type Template = template.Template;
export type TemplateVariable = template.Variable;
export type ResolvedTemplate = template.Resolved;
export type TemplateProblem = template.ValidationError;
export type TemplateImport = main.TemplateImport;
export type TemplateExport = main.TemplateExport;
export type Settings = settings.Settings;
export type SettingsView = main.SettingsView;
export type DoctorReport = claude.Report;
export type HostStatus = hosts.Status;
export type SessionInfo = session.Info;
export type SessionTranscript = main.SessionTranscript;
export type TranscriptItem = sessions.Item;
export type PermissionPrompt = sessions.Permission;
export type PermissionDecision = 'once' | 'always' | 'deny';
export type Run = view.Run;
export type Task = view.Task;
export type Worker = view.Worker;
export type PhaseAnswer = view.PhaseAnswer;
export type RunSnapshot = view.Snapshot;
export type CreateRunRequest = engine.CreateRequest;
export type RunOverrides = engine.Overrides;
export type Modifications = engine.Modifications;
export type TaskEdit = engine.TaskEdit;
export type NewTask = engine.NewTask;
export type HistoryQuery = store.HistoryQuery;
export type HistoryPage = view.HistoryPage;
export type InboxItem = inbox.Item;
export type ReportExport = main.ReportExport;
export type FinalReport = report.FinalReport;
export type RunWorktree = engine.Worktree;
export type TaskChanges = engine.TaskChanges;
export type Applied = worktree.Applied;
export type WorkerAction = 'pause' | 'resume' | 'cancel' | 'retry';

// Builders: plain JSON made into the generated classes the bindings take.

/** The request that starts a run. */
export const createRunRequest = (source: Partial<CreateRunRequest>): CreateRunRequest => engine.CreateRequest.createFrom(source);

/** The user's changes to a proposed task list. */
export const newModifications = (source: Partial<Modifications>): Modifications => engine.Modifications.createFrom(source);

/** A run's snapshot as RunSnapshot returns it. */
export const snapshotFrom = (source: unknown): RunSnapshot => view.Snapshot.createFrom(source);

/** A task as the run bindings return it. */
export const taskFrom = (source: unknown): Task => view.Task.createFrom(source);
