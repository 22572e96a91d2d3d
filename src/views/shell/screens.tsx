/**
 * The element of every screen of src/domain/screens.ts. The table is typed by the screen ids, so a
 * screen added to the domain table without an element here does not compile.
 *
 * Only the landing page is in the first bundle: every other screen, and every devtool, is loaded
 * when its route is first opened (the size budgets of tests/unit/bundleBudgets.test.ts hold
 * this), with a light skeleton meanwhile.
 */
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import type { RouteObject } from 'react-router';
import { SCREEN_IDS, SCREENS, type ScreenDef, type ScreenId } from '../../domain/screens.ts';
import { PageSkeleton } from '../../ui/PageSkeleton.tsx';
import { LandingPage } from '../landing/LandingPage.tsx';

/**
 * A screen's component, loaded on first render and shown behind the page skeleton until then.
 * `load` names the module's export, so the module stays a plain named-export module.
 */
export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Loaded = lazy(async () => ({ default: await load() }));
  function LazyScreen(props: P) {
    return <Suspense fallback={<PageSkeleton />}><Loaded {...props} /></Suspense>;
  }
  return LazyScreen;
}

const WelcomePage = lazyScreen(() => import('../welcome/WelcomePage.tsx').then((m) => m.WelcomePage));
const NotFoundPage = lazyScreen(() => import('../errors/NotFoundPage.tsx').then((m) => m.NotFoundPage));
const AuthErrorPage = lazyScreen(() => import('../errors/AuthErrorPage.tsx').then((m) => m.AuthErrorPage));
const ScreenPlaceholder = lazyScreen(() => import('../../ui/ScreenPlaceholder.tsx').then((m) => m.ScreenPlaceholder));
const BucketRoute = lazyScreen(() => import('../records/BucketPage.tsx').then((m) => m.BucketRoute));
const RunHistoryRoute = lazyScreen(() => import('../formulas/RunHistoryPage.tsx').then((m) => m.RunHistoryRoute));
const FormulaList = lazyScreen(() => import('../formulas/AllFormulasPage.tsx').then((m) => m.FormulaList));
const DataQueuePage = lazyScreen(() => import('../dataQueue/DataQueuePage.tsx').then((m) => m.DataQueuePage));
const PrintFormulaReviewPage = lazyScreen(() => import('../wizard/PrintFormulaReview.tsx').then((m) => m.PrintFormulaReviewPage));
const FieldShowcasePage = lazyScreen(() => import('../showcase/FieldShowcasePage.tsx').then((m) => m.FieldShowcasePage));
const UploadScreen = lazyScreen(() => import('../upload/UploadPage.tsx').then((m) => m.UploadScreen));
const ActivityHistoryRoute = lazyScreen(() => import('../activity/ActivityHistoryPage.tsx').then((m) => m.ActivityHistoryRoute));
const UserManagementPage = lazyScreen(() => import('../users/UserManagementPage.tsx').then((m) => m.UserManagementPage));
const FeatureFlagsRoute = lazyScreen(() => import('../flags/FeatureFlagsRoute.tsx').then((m) => m.FeatureFlagsRoute));
// the statechart viewer carries a graph-layout library (ELK, 1.5 MB)
const WorkflowsPage = lazyScreen(() => import('../../devtools/views/WorkflowsPage.tsx').then((m) => m.WorkflowsPage));
const InspectorPage = lazyScreen(() => import('../../devtools/views/InspectorPage.tsx').then((m) => m.InspectorPage));

/** Screens the composition root builds (they need services wired in main.tsx). */
export type ProvidedScreens = Partial<Record<'connections', ReactNode>>;

export function screenElements(provided: ProvidedScreens = {}): Record<ScreenId, ReactNode> {
  return {
    landing: <LandingPage />,
    welcome: <WelcomePage />,
    dataQueue: <DataQueuePage />,
    integrationsFormulas: <FormulaList title="All Formulas" />,
    connections: provided.connections ?? <ScreenPlaceholder title="Connections" text="No data sources yet." />,
    activityHistory: <ActivityHistoryRoute />,
    formulaActivityHistory: <ActivityHistoryRoute />,
    userManagement: <UserManagementPage />,
    featureFlags: <FeatureFlagsRoute />,
    workflows: <WorkflowsPage />,
    workflowsInspector: <InspectorPage />,
    fileUpload: <UploadScreen />,
    readyRecords: <BucketRoute screen="readyRecords" />,
    needsAttention: <BucketRoute screen="needsAttention" />,
    needsAttentionReview: <BucketRoute screen="needsAttentionReview" />,
    needsAttentionOneToOne: <BucketRoute screen="needsAttentionOneToOne" />,
    oneToMany: <BucketRoute screen="oneToMany" />,
    exception: <BucketRoute screen="exception" />,
    formulaExceptions: <BucketRoute screen="formulaExceptions" />,
    newRecords: <BucketRoute screen="newRecords" />,
    validationExceptions: <BucketRoute screen="validationExceptions" />,
    relatedRecords: <BucketRoute screen="relatedRecords" />,
    sentRecords: <BucketRoute screen="sentRecords" />,
    omittedRecords: <BucketRoute screen="omittedRecords" />,
    runHistory: <RunHistoryRoute />,
    printFormulaReview: <PrintFormulaReviewPage />,
    notFound: <NotFoundPage />,
    authErrorSubdomain: <AuthErrorPage kind="subdomain" />,
    authErrorRole: <AuthErrorPage kind="role" />,
    authErrorTenant: <AuthErrorPage kind="tenant" />,
    fieldShowcase: <FieldShowcasePage />,
  };
}

/** The router's children of the root route, one per screen (non-production screens only outside production). */
export function screenRoutes(production: boolean, provided?: ProvidedScreens): RouteObject[] {
  const elements = screenElements(provided);
  return SCREEN_IDS.flatMap((id) => {
    const screen: ScreenDef = SCREENS[id];
    return screen.access.nonProductionOnly && production ? [] : [{ path: screen.path.slice(1), element: elements[id] }];
  });
}
