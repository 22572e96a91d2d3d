/**
 * The element of every screen of src/domain/screens.ts. The table is typed by the screen ids, so a
 * screen added to the domain table without an element here does not compile.
 */
import { lazy, Suspense, type ReactNode } from 'react';
import type { RouteObject } from 'react-router';
import { SCREEN_IDS, SCREENS, type ScreenDef, type ScreenId } from '../../domain/screens.ts';
import { LandingPage } from '../landing/LandingPage.tsx';
import { WelcomePage } from '../welcome/WelcomePage.tsx';
import { NotFoundPage } from '../errors/NotFoundPage.tsx';
import { AuthErrorPage } from '../errors/AuthErrorPage.tsx';
import { ScreenPlaceholder } from '../../ui/ScreenPlaceholder.tsx';
import { FormulaScreen } from '../placeholders/ScreenPlaceholder.tsx';
import { FieldShowcasePage } from '../showcase/FieldShowcasePage.tsx';
import { UploadPage } from '../upload/UploadPage.tsx';
import { FeatureFlagsRoute } from '../flags/FeatureFlagsRoute.tsx';

// the statechart viewer carries a graph-layout library: loaded only when opened
const WorkflowsPage = lazy(() => import('../../devtools/views/WorkflowsPage.tsx').then((m) => ({ default: m.WorkflowsPage })));
const InspectorPage = lazy(() => import('../../devtools/views/InspectorPage.tsx').then((m) => ({ default: m.InspectorPage })));

/** Screens the composition root builds (they need services wired in main.tsx). */
export type ProvidedScreens = Partial<Record<'connections', ReactNode>>;

const formula = (id: ScreenId) => <FormulaScreen title={SCREENS[id].title} />;

export function screenElements(provided: ProvidedScreens = {}): Record<ScreenId, ReactNode> {
  return {
    landing: <LandingPage />,
    welcome: <WelcomePage />,
    dataQueue: <ScreenPlaceholder title="Data Queue" text="No formulas yet. Create a formula to start moving records." />,
    integrationsFormulas: <ScreenPlaceholder title="All Formulas" text="No formulas yet." />,
    connections: provided.connections ?? <ScreenPlaceholder title="Connections" text="No data sources yet." />,
    activityHistory: <ScreenPlaceholder title="Activity History" text="No activity yet." />,
    formulaActivityHistory: <ScreenPlaceholder title="Activity History" text="No activity for this formula yet." />,
    userManagement: <ScreenPlaceholder title="User Management" text="Users of this tenant appear here." />,
    featureFlags: <FeatureFlagsRoute />,
    workflows: <Suspense fallback={null}><WorkflowsPage /></Suspense>,
    workflowsInspector: <Suspense fallback={null}><InspectorPage /></Suspense>,
    fileUpload: <UploadPage />,
    readyRecords: formula('readyRecords'),
    needsAttention: formula('needsAttention'),
    needsAttentionReview: formula('needsAttentionReview'),
    needsAttentionOneToOne: formula('needsAttentionOneToOne'),
    oneToMany: formula('oneToMany'),
    exception: formula('exception'),
    formulaExceptions: formula('formulaExceptions'),
    newRecords: formula('newRecords'),
    validationExceptions: formula('validationExceptions'),
    relatedRecords: formula('relatedRecords'),
    printFormulaReview: formula('printFormulaReview'),
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
