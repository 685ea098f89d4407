// A view with no items yet: VS Code then shows the view's welcome content.
import * as vscode from 'vscode';

export class EmptyTreeProvider implements vscode.TreeDataProvider<never> {
  getTreeItem(element: never): vscode.TreeItem { return element; }
  getChildren(): never[] { return []; }
}
